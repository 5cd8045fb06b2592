"""Helpers shared by the array functions (argument checks, zero gradients, scatter-add)."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy

from chainer import backend
from chainer.utils import type_check


def as_int(value: Any, where: str, name: str) -> int:
    """``value`` as a Python int; ``TypeError`` naming ``where`` and ``name`` if it is not one."""
    if isinstance(value, bool) or isinstance(value, (float, numpy.floating)):
        raise TypeError(f"{where}: {name} must be an int, got {type(value).__name__} {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{where}: {name} must be an int, got {type(value).__name__} {value!r}") from None


def as_int_tuple(value: Any, where: str, name: str, allow_int: bool = True) -> tuple[int, ...]:
    """An int or a sequence of ints as a tuple of ints."""
    if allow_int and not isinstance(value, (tuple, list, numpy.ndarray)):
        return (as_int(value, where, name),)
    if isinstance(value, numpy.ndarray) and value.ndim != 1:
        raise TypeError(
            f"{where}: {name} must be a 1-dimensional sequence of ints, got an array of shape {value.shape}"
        )
    if not isinstance(value, (tuple, list, numpy.ndarray)):
        raise TypeError(f"{where}: {name} must be a tuple of ints, got {type(value).__name__} {value!r}")
    return tuple(as_int(v, where, name) for v in value)


def expect_axis(x_type: Any, axis: int, name: str = "axis", new_axis: bool = False) -> None:
    """Expect ``-x.ndim <= axis < x.ndim`` (``<= x.ndim`` if ``new_axis``, for an axis
    that is being inserted)."""
    named = type_check.make_variable(axis, name)
    if new_axis:
        if axis >= 0:
            type_check.expect(named <= x_type.ndim)
        else:
            type_check.expect(-named <= x_type.ndim + 1)
    elif axis >= 0:
        type_check.expect(named < x_type.ndim)
    else:
        type_check.expect(-named <= x_type.ndim)


def expect_same_dtypes_and_shapes(in_types: Any, skip_axis: int | None = None) -> None:
    """Expect every input to have the dtype and ndim of the first, and its shape except
    along ``skip_axis``."""
    first = in_types[0]
    n = type_check.eval(in_types.size())
    ndim = type_check.eval(first.ndim)
    if skip_axis is not None and skip_axis < 0:
        skip_axis += ndim
    for i in range(1, n):
        other = in_types[i]
        type_check.expect(other.dtype == first.dtype, other.ndim == first.ndim)
        for d in range(ndim):
            if d != skip_axis:
                type_check.expect(other.shape[d] == first.shape[d])


def zeros_for_none(grads: Sequence[Any], shapes: Sequence[tuple[int, ...]], dtype: Any, xp: Any) -> list[Any]:
    """Replace ``None`` gradients (zero by convention) with zero arrays of the given shapes."""
    return [xp.zeros(shape, dtype) if g is None else g for g, shape in zip(grads, shapes)]


def array_module_of(grads: Sequence[Any]) -> Any:
    """The array module of the first non-``None`` gradient."""
    for g in grads:
        if g is not None:
            return backend.get_array_module(g)
    return numpy


def scatter_add_flat(size: int, index: Any, values: Any, dtype: Any) -> Any:
    """A 1-dimensional array of ``size`` elements where ``values`` are summed at ``index``.

    ``bincount`` accumulates in float64 in one pass, which is exact enough and much faster
    than ``ufunc.at`` on repeated indices.
    """
    xp = backend.get_array_module(values)
    summed = xp.bincount(index.ravel(), weights=values.ravel().astype(numpy.float64, copy=False), minlength=size)
    return summed.astype(dtype, copy=False)


def split_back(gy: Any, axis: int, sizes: Sequence[int], in_shapes: Sequence[tuple[int, ...]]) -> tuple[Any, ...]:
    """Gradients of inputs joined along ``axis`` (after reshaping to the joined ndim):
    ``gy`` split at the cumulative ``sizes`` and each piece reshaped to its input shape."""
    from chainer.functions.array import reshape, split_axis

    indices = []
    offset = 0
    for size in sizes[:-1]:
        offset += size
        indices.append(offset)
    pieces = split_axis.split_axis(gy, tuple(indices), axis, force_tuple=True)
    return tuple(reshape.reshape(p, shape) for p, shape in zip(pieces, in_shapes))


def eval_size(x_type: Any) -> int:
    """Number of elements of an input, in both type-check modes (in light mode the input is
    the array itself, whose ``size`` is an attribute, not a method)."""
    size = x_type.size
    return size if isinstance(size, int) else type_check.eval(size())
