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


class GetItem(function_node.FunctionNode):
    """``x[slices]``."""

    def __init__(self, slices: Any) -> None:
        self.slices = slices

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))

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


variable.Variable.__getitem__ = get_item  # type: ignore[method-assign,assignment]

__all__ = ["get_item"]
