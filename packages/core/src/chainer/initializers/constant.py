"""Initializers that fill constants: Constant, Zero, One, NaN and Identity."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, initializer
from chainer.initializers import _util


class Constant(initializer.Initializer):
    """Fills an array with a scalar, or with an array broadcast to its shape.

    Args:
        fill_value: A scalar or an array broadcastable to the target.
        dtype: Expected dtype of the target.
    """

    def __init__(self, fill_value: Any, dtype: Any = None) -> None:
        self.fill_value = fill_value
        super().__init__(dtype)

    def __call__(self, array: Any) -> None:
        _util.check_dtype(self, array)
        xp = backend.get_array_module(array)
        value = self.fill_value
        if not numpy.isscalar(value) and not isinstance(value, numpy.generic):
            value = backend.get_device_from_array(array).send(
                numpy.asarray(value) if isinstance(value, (list, tuple)) else value
            )
        array[...] = xp.asarray(value).astype(array.dtype, copy=False)


class Zero(Constant):
    """Fills an array with zeros."""

    def __init__(self, dtype: Any = None) -> None:
        super().__init__(0.0, dtype)


class One(Constant):
    """Fills an array with ones."""

    def __init__(self, dtype: Any = None) -> None:
        super().__init__(1.0, dtype)


class NaN(Constant):
    """Fills an array with NaN (marks values that must be overwritten before use)."""

    def __init__(self, dtype: Any = None) -> None:
        super().__init__(numpy.nan, dtype)


class Identity(initializer.Initializer):
    """Fills a square 2-dimensional array with ``scale`` times the identity matrix.

    Args:
        scale: Value on the diagonal.
        dtype: Expected dtype of the target.
    """

    def __init__(self, scale: float = 1.0, dtype: Any = None) -> None:
        self.scale = scale
        super().__init__(dtype)

    def __call__(self, array: Any) -> None:
        _util.check_dtype(self, array)
        if array.ndim != 2 or array.shape[0] != array.shape[1]:
            raise ValueError(f"Identity: the array must be a square matrix, got shape {array.shape}")
        xp = backend.get_array_module(array)
        array[...] = xp.identity(array.shape[0], dtype=array.dtype) * self.scale
