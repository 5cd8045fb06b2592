"""Indexing a variable: ``x[slices]`` with basic and advanced indices."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, function_node, variable
from chainer.utils import type_check


def _normalize(slices: Any) -> Any:
    if isinstance(slices, variable.Variable):
        return slices.array
    if isinstance(slices, list):
        # As in Chainer 7.8.1: a list of ints (or bools) is one advanced index; any other
        # list (holding lists, arrays, slices, None...) is a tuple of indices.
        if not slices:
            return numpy.empty(0, numpy.intp)
        if all(isinstance(s, (int, numpy.integer, numpy.bool_)) for s in slices):
            return numpy.asarray(slices)
        return tuple(s.array if isinstance(s, variable.Variable) else s for s in slices)
    if isinstance(slices, tuple):
        return tuple(s.array if isinstance(s, variable.Variable) else s for s in slices)
    return slices


def _is_basic(slices: Any) -> bool:
    items = slices if isinstance(slices, tuple) else (slices,)
    for s in items:
        if not (s is None or s is Ellipsis or isinstance(s, (slice, int, numpy.integer))) or isinstance(s, bool):
            return False
    return True


def _check_index(x_type: Any, slices: Any, where: str) -> None:
    """Check an index against the indexed input, with Chainer 7's errors: a ValueError for
    more than one ``...`` and an InvalidType for more indexed axes than the input has."""
    items = slices if type(slices) is tuple else (slices,)
    n_indexed = 0
    n_ellipsis = 0
    for s in items:
        if s is None:
            continue
        if s is Ellipsis:
            n_ellipsis += 1
            continue
        if type(s) is slice or type(s) is int:
            n_indexed += 1
            continue
        dtype = getattr(s, "dtype", None)
        # A boolean mask indexes as many axes as it has; anything else indexes one.
        n_indexed += s.ndim if dtype is not None and dtype.kind == "b" else 1
    if n_ellipsis > 1:
        raise ValueError(f"{where}: an index can have only one Ellipsis ('...'), got {n_ellipsis}")
    # The expression is built only to report a failure: indexing is on the hot path.
    if n_indexed > type_check.eval(x_type.ndim):
        type_check.expect(x_type.ndim >= type_check.make_variable(n_indexed, "the number of indexed axes"))


class GetItem(function_node.FunctionNode):
    """``x[slices]``."""

    def __init__(self, slices: Any) -> None:
        self.slices = slices

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        _check_index(in_types[0], self.slices, "chainer.functions.get_item")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        self._in_shape = x.shape
        self._in_dtype = x.dtype
        slices = self.slices
        xp = backend.get_array_module(x)
        if xp is not numpy:
            slices = _to_device_index(slices, xp)
            self.slices = slices
        y = x[slices]
        return ((y if isinstance(y, xp.ndarray) else xp.asarray(y)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return GetItemGrad(self.slices, self._in_shape).apply(grad_outputs)


def _to_device_index(slices: Any, xp: Any) -> Any:
    if isinstance(slices, tuple):
        return tuple(_to_device_index(s, xp) for s in slices)
    if isinstance(slices, numpy.ndarray):
        return xp.asarray(slices)
    return slices


class GetItemGrad(function_node.FunctionNode):
    """Scatter-add a gradient back to the indexed positions (repeated indices add up)."""

    def __init__(self, slices: Any, in_shape: tuple[int, ...]) -> None:
        self.slices = slices
        self._in_shape = in_shape

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy = inputs[0]
        xp = backend.get_array_module(gy)
        gx = xp.zeros(self._in_shape, gy.dtype)
        if _is_basic(self.slices):
            gx[self.slices] = gy
        elif xp is numpy:
            numpy.add.at(gx, self.slices, gy)
        else:
            xp.add.at(gx, self.slices, gy)
        return (gx,)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (get_item(grad_outputs[0], self.slices),)


def get_item(x: Any, slices: Any) -> variable.Variable:
    """Extract elements: the same as ``x[slices]``.

    Args:
        x: Input variable.
        slices: An int, slice, ``None``, ``Ellipsis``, an integer or boolean array (or
            list) for advanced indexing, or a tuple of these.

    Returns:
        The selected elements. The gradient flows back to the selected positions, summed
        where an index repeats.
    """
    return GetItem(_normalize(slices)).apply((x,))[0]


def install_variable_get_item() -> None:
    """Give :class:`~chainer.Variable` its indexing operator, ``x[slices]`` (done when this
    module is imported; calling it again reinstalls it)."""
    variable.Variable.__getitem__ = get_item  # type: ignore[method-assign,assignment]


install_variable_get_item()

__all__ = ["get_item"]
