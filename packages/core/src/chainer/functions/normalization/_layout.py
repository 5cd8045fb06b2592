"""Shared machinery of the batch-statistics normalizations: which axes are reduced, and
a ``(P, K, Q)`` view of the input in which the ``K`` parameter entries sit in the middle.

Reducing a ``(P, K, Q)`` array over axes ``0`` and ``2`` is the fast path of NumPy and
CuPy (a plain reshape of a C-contiguous input, no transposition), so every kernel of
this package works on that view whatever the layout of the parameters.
"""

from __future__ import annotations

import functools
import numbers
from typing import Any

import numpy

from chainer.utils import type_check


def parse_axis(axis: Any, where: str) -> tuple[int, ...] | None:
    """``axis`` as a tuple of ints (``None`` stays ``None``); bad types and duplicates raise."""
    if axis is None:
        return None
    if isinstance(axis, (int, numpy.integer)) and not isinstance(axis, bool):
        return (int(axis),)
    if isinstance(axis, (tuple, list)) and all(
        isinstance(a, (int, numpy.integer)) and not isinstance(a, bool) for a in axis
    ):
        axes = tuple(int(a) for a in axis)
        if not axes:
            raise ValueError(f"{where}: axis must name at least one axis to reduce, got {axis!r}")
        if len(set(axes)) != len(axes):
            raise ValueError(f"{where}: duplicate value in axis {axes}")
        return axes
    raise TypeError(f"{where}: axis must be None, an int or a tuple of ints, got {axis!r}")


def reduced_axes(x_ndim: int, param_ndim: int, axis: tuple[int, ...] | None) -> tuple[int, ...]:
    """The reduced axes, sorted and non-negative: by default the batch axis and every axis
    after the parameter axes (``(0, 2, 3)`` for an ``(N, C, H, W)`` input and a ``(C,)``
    parameter)."""
    if axis is None:
        return (0,) + tuple(range(param_ndim + 1, x_ndim))
    axes = {a % x_ndim for a in axis}
    if len(axes) != len(axis):
        raise type_check.InvalidType(
            f"axis {axis} names distinct axes", f"it names one axis twice for an input of {x_ndim} dimensions"
        )
    return tuple(sorted(axes))


def check_param_axes(x_type: Any, param_type: Any, axis: tuple[int, ...] | None) -> None:
    """Type check: the parameter's shape is the input's shape on the kept axes, and every
    reduced axis has elements (statistics of nothing do not exist)."""
    x_ndim = type_check.eval(x_type.ndim)
    param_ndim = type_check.eval(param_type.ndim)
    if axis is None:
        type_check.expect(x_type.ndim >= param_type.ndim + 1)
        key: Any = range(1, 1 + param_ndim)
    else:
        need = max(a + 1 if a >= 0 else -a for a in axis)
        type_check.expect(x_type.ndim >= type_check.make_variable(need, "min_ndim_for_axis"))
        reduced = reduced_axes(x_ndim, param_ndim, axis)
        key = [i for i in range(x_ndim) if i not in reduced]
        type_check.expect(param_type.ndim == type_check.make_variable(len(key), "number_of_kept_axes"))
    type_check.expect(*[x_type.shape[k] == param_type.shape[i] for i, k in enumerate(key)])
    type_check.expect(*[x_type.shape[a] > 0 for a in reduced_axes(x_ndim, param_ndim, axis)])


@functools.lru_cache(maxsize=64)
def acc_dtype(*dtypes: Any) -> numpy.dtype[Any]:
    """The dtype statistics are computed in: at least float32 (float16 sums drift)."""
    return numpy.result_type(numpy.float32, *dtypes)


@functools.lru_cache(maxsize=256)
def get_layout(shape: tuple[int, ...], axes: tuple[int, ...]) -> Layout:
    """The (immutable) :class:`Layout` of ``shape``; a bounded cache, as a network calls
    this with the same few shapes every iteration."""
    return Layout(shape, axes)


class Layout:
    """How an input of ``shape`` splits into reduced axes and parameter (kept) axes.

    Attributes:
        axes: The reduced axes (sorted).
        key_axes: The kept axes, whose sizes make the parameter shape.
        param_shape: ``shape`` on the kept axes.
        count: Number of elements each statistic is computed from.
        bshape: ``shape`` with the reduced axes set to ``1`` (parameters broadcast to it).
        shape3: The ``(P, K, Q)`` view.
    """

    __slots__ = ("shape", "axes", "key_axes", "param_shape", "count", "bshape", "shape3", "_perm", "_inv_perm")

    def __init__(self, shape: tuple[int, ...], axes: tuple[int, ...]) -> None:
        self.shape = shape
        self.axes = axes
        reduced = set(axes)
        self.key_axes = key = tuple(i for i in range(len(shape)) if i not in reduced)
        self.param_shape = tuple(shape[i] for i in key)
        self.bshape = tuple(1 if i in reduced else s for i, s in enumerate(shape))
        count = 1
        for a in axes:
            count *= shape[a]
        self.count = count
        size_k = 1
        for s in self.param_shape:
            size_k *= s
        if not key:
            self._perm = None
            self.shape3 = (1, 1, count)
        elif key == tuple(range(key[0], key[-1] + 1)):
            # The kept axes are adjacent: a reshape, no data movement.
            self._perm = None
            outer = 1
            for s in shape[: key[0]]:
                outer *= s
            self.shape3 = (outer, size_k, count // outer if outer else 0)
        else:
            self._perm = key + axes
            self._inv_perm = tuple(numpy.argsort(self._perm))
            self.shape3 = (1, size_k, count)

    def to3(self, a: Any) -> Any:
        """``a`` (of the input's shape) as the ``(P, K, Q)`` array."""
        if self._perm is None:
            return a.reshape(self.shape3)
        return a.transpose(self._perm).reshape(self.shape3)

    def from3(self, a3: Any) -> Any:
        """Inverse of :meth:`to3`."""
        if self._perm is None:
            return a3.reshape(self.shape)
        permuted = tuple(self.shape[i] for i in self._perm)
        return a3.reshape(permuted).transpose(self._inv_perm)


def moments(xp: Any, x3: Any, count: int, dtype: Any) -> tuple[Any, Any, Any]:
    """Mean and (biased) variance over axes ``0`` and ``2`` of ``x3``, in ``dtype``.

    Returns ``(mean, centered, var)``; ``centered`` is the fresh array ``x3 - mean`` of
    ``dtype``, which callers reuse as the output buffer. The variance is computed from
    the centered values (not as ``E[x^2] - E[x]^2``, which cancels catastrophically when
    the mean is large against the spread).
    """
    mean = x3.sum(axis=(0, 2), dtype=dtype)
    mean *= 1.0 / count
    centered = x3 - mean[:, None]
    if centered.dtype != dtype:
        centered = centered.astype(dtype)
    var = xp.einsum("pkq,pkq->k", centered, centered)
    var *= 1.0 / count
    return mean, centered, var


def check_eps(eps: Any, where: str) -> float:
    if not isinstance(eps, numbers.Real) or isinstance(eps, bool) or not eps >= 0:
        raise ValueError(f"{where}: eps must be a non-negative real number, got {eps!r}")
    return float(eps)


def check_decay(decay: Any, where: str) -> float:
    if not isinstance(decay, numbers.Real) or isinstance(decay, bool) or not 0.0 <= decay <= 1.0:
        raise ValueError(f"{where}: decay must be a real number in [0, 1], got {decay!r}")
    return float(decay)


def running_array(value: Any, name: str, param_shape: tuple[int, ...], where: str) -> Any:
    """The array behind a running statistic (updated in place), checked against the
    parameter shape."""
    if value is None:
        return None
    array = getattr(value, "array", value)  # a Variable's array is updated in place too
    if not hasattr(array, "shape") or not hasattr(array, "dtype") or isinstance(array, numpy.generic):
        raise TypeError(f"{where}: {name} must be an array (updated in place), got {type(value).__name__}")
    if array.dtype.kind != "f":
        raise TypeError(f"{where}: {name} must be a floating-point array, got dtype {array.dtype}")
    if tuple(array.shape) != tuple(param_shape):
        raise ValueError(
            f"{where}: {name} must have the parameter shape {tuple(param_shape)}, got {tuple(array.shape)}"
        )
    return array
