"""The shared type check of the losses that compare two arrays elementwise."""

from __future__ import annotations

from typing import Any

from chainer.utils import type_check


def check_same_float_arrays(in_types: Any, names: tuple[str, str] = ("x0", "x1")) -> None:
    """Both inputs: one floating dtype and one shape."""
    type_check._argname(in_types, names)
    a, b = in_types
    type_check.expect(a.dtype.kind == "f", a.dtype == b.dtype, a.shape == b.shape)
