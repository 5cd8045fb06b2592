"""Helpers shared by the reductions of this package (axis arguments and their checks)."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, function_node
from chainer.utils import type_check


def normalize_axis(axis: Any, where: str, allow_tuple: bool = True) -> tuple[int, ...] | None:
    """Validate an ``axis`` argument and return it as ``None`` or a tuple of ints.

    A list is refused as Chainer 7 refused it (a tuple is the documented form).

    Raises:
        TypeError: ``axis`` is neither ``None``, an int nor (if allowed) a tuple of ints.
        ValueError: The tuple repeats a value.
    """
    if axis is None:
        return None
    if _is_int(axis):
        return (int(axis),)
    if allow_tuple and isinstance(axis, tuple) and all(_is_int(a) for a in axis):
        if len(set(axis)) != len(axis):
            raise ValueError(f"{where}: duplicate value in axis {axis}")
        return tuple(int(a) for a in axis)
    expected = "None, an int or a tuple of ints" if allow_tuple else "None or an int"
    raise TypeError(f"{where}: axis must be {expected}, got {axis!r}")


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, numpy.integer)) and not isinstance(value, (bool, numpy.bool_))


def check_axes(x_type: Any, axes: tuple[int, ...] | None, name: str = "x", where: str = "") -> None:
    """Type check: every axis is in ``[-ndim, ndim)``; and no two name the same axis, a
    ``ValueError`` as in Chainer 7 (``(1, -2)`` of a 3-dimensional ``x``), naming the
    function ``where``."""
    if axes is None:
        return
    ndim = type_check.eval(x_type.ndim)
    for axis in axes:
        if not -ndim <= axis < ndim:
            raise type_check.InvalidType(
                f"-{name}.ndim <= axis < {name}.ndim for every axis in {axes}", f"{name}.ndim is {ndim}"
            )
    if len({a % ndim for a in axes}) != len(axes):
        raise ValueError(
            f"{where}: duplicate value in axis {axes}: they name one axis of the {ndim}-dimensional {name} twice"
        )


class AxisReduction(function_node.FunctionNode):
    """A reduction of a floating ``x`` over ``axis`` (a tuple of ints, ``None`` for all
    axes), keeping the reduced axes with size one if ``keepdims``. A subclass names its
    public function in ``_where`` (for argument errors)."""

    _where = "chainer.functions"

    def __init__(self, axis: tuple[int, ...] | None = None, keepdims: bool = False) -> None:
        self.axis = axis
        self.keepdims = keepdims

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type = in_types[0]
        # Integer reductions would make average() and friends truncate; 7.8.1 rejects them too.
        expect_float(x_type)
        check_axes(x_type, self.axis, where=self._where)


def reduced_axes(ndim: int, axes: tuple[int, ...] | None) -> tuple[int, ...]:
    """The reduced axes as sorted non-negative ints (all axes for ``None``)."""
    if axes is None:
        return tuple(range(ndim))
    return tuple(sorted(a % ndim for a in axes))


def kept_shape(shape: tuple[int, ...], axes: tuple[int, ...] | None) -> tuple[int, ...]:
    """``shape`` with the reduced axes set to 1 (the shape of a ``keepdims`` result)."""
    reduced = reduced_axes(len(shape), axes)
    return tuple(1 if i in reduced else s for i, s in enumerate(shape))


def expect_float(x_type: Any) -> None:
    type_check.expect(x_type.dtype.kind == "f")


def expect_linalg_dtype(a_type: Any, name: str = "a", half: bool = False) -> None:
    """Linear algebra runs in float32 or float64 only (as LAPACK and cuSOLVER do);
    ``half`` also admits float16, which :func:`linalg_operand` computes in float32."""
    dtype = type_check.eval(a_type.dtype)
    if dtype.char not in ("efd" if half else "fd"):
        expected = "(float16, float32, float64)" if half else "(float32, float64)"
        raise type_check.InvalidType(f"{name}.dtype in {expected}", f"{name}.dtype is {dtype}")


def linalg_operand(a: Any) -> Any:
    """``a`` in a dtype that LAPACK and cuSOLVER take: float16 becomes float32."""
    return a.astype(numpy.float32) if a.dtype == numpy.float16 else a


def first_true(mask: Any, axes: tuple[int, ...]) -> Any:
    """Mark the first ``True`` of ``mask`` in each group of elements reduced over ``axes``
    (first in C order over those axes); every other element becomes ``False``."""
    ndim = mask.ndim
    rest = tuple(i for i in range(ndim) if i not in axes)
    perm = rest + tuple(axes)
    moved = mask.transpose(perm)
    flat = moved.reshape(moved.shape[: len(rest)] + (-1,))
    xp = backend.get_array_module(mask)
    first = flat & (xp.cumsum(flat, axis=-1) == 1)
    inverse = [0] * ndim
    for i, p in enumerate(perm):
        inverse[p] = i
    return first.reshape(moved.shape).transpose(inverse)


def expand(v: Any, kept: tuple[int, ...], shape: tuple[int, ...]) -> Any:
    """Differentiably broadcast a reduction result ``v`` back to the input ``shape``."""
    from chainer.functions.array import broadcast, reshape

    return broadcast.broadcast_to(reshape.reshape(v, kept), shape)
