"""Helpers shared by the optimizer hooks."""

from __future__ import annotations

import contextlib
from typing import Any

import numpy

from chainer import backend


def loss_scale(param: Any) -> float:
    """The factor the parameter's gradient is still multiplied by (1 when it is not
    scaled): optimizer-level 'pre' hooks run before update rules unscale gradients."""
    scale = getattr(param, "_loss_scale", None)
    return 1.0 if scale is None else float(scale)


def on_device(array: Any) -> contextlib.AbstractContextManager[Any]:
    """Make the array's device current (needed by CuPy kernels on multi-GPU hosts)."""
    if isinstance(array, numpy.ndarray):
        return contextlib.nullcontext()
    return backend.get_device_from_array(array).create_context()


def accumulation_dtype(dtype: Any) -> Any:
    """float32 for float16 arrays (their squared norms overflow at 256), else the dtype."""
    return numpy.float32 if dtype == numpy.float16 else dtype


def check_number(owner: str, name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, numpy.integer, numpy.floating)):
        raise TypeError(f"{owner}: {name} must be a real number, got {value!r}")
    return value
