"""Mixed precision helpers."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy


def _fp16_mixed_precision_helper(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Decorate ``forward(self, inputs)`` so that float16 inputs are computed in float32.

    If any input is float16, the float16 inputs are cast to float32 before ``fn`` and
    the floating outputs are cast back to float16 after; other inputs and outputs (ints,
    ``None``) pass unchanged. Without float16 inputs ``fn`` runs as it is.
    """

    @functools.wraps(fn)
    def wrapper(self: Any, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        if not any(x is not None and x.dtype == numpy.float16 for x in inputs):
            return fn(self, inputs)
        inputs = tuple(x.astype(numpy.float32) if x is not None and x.dtype == numpy.float16 else x for x in inputs)
        outputs = fn(self, inputs)
        return tuple(y.astype(numpy.float16) if y is not None and y.dtype.kind == "f" else y for y in outputs)

    return wrapper
