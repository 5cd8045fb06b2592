"""Shape helpers on NumPy and CuPy arrays (Chainer 7's ``chainer.utils.array``).

``size_of_shape`` and ``sum_to`` are defined in :mod:`chainer.utils` and are the same
objects here.
"""

from __future__ import annotations

from typing import Any

from chainer import backend
from chainer.utils import size_of_shape, sum_to


def as_vec(x: Any) -> Any:
    """``x`` as a 1-dimensional array (``x`` itself if it already is one; a view where
    the layout allows).

    Example:
        >>> chainer.utils.array.as_vec(np.zeros((2, 3))).shape
        (6,)
    """
    if x.ndim == 1:
        return x
    return x.ravel()


def as_mat(x: Any) -> Any:
    """``x`` as a 2-dimensional array: the first axis kept, the others flattened into one.

    Example:
        >>> chainer.utils.array.as_mat(np.zeros((2, 3, 4))).shape
        (2, 12)
    """
    if x.ndim == 2:
        return x
    if x.ndim == 0:
        raise ValueError("chainer.utils.array.as_mat: a 0-dimensional array has no first axis to keep")
    return x.reshape(len(x), -1)


def empty_like(x: Any) -> Any:
    """An uninitialized array of the shape and dtype of ``x``, on ``x``'s device."""
    return backend.get_array_module(x).empty_like(x)


__all__ = ["as_mat", "as_vec", "empty_like", "size_of_shape", "sum_to"]
