"""A strided view of the elements of a variable."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, function_node, variable
from chainer.functions.array import _util
from chainer.utils import type_check


def _index_array(xp: Any, shape: tuple[int, ...], strides: tuple[int, ...], offset: int) -> Any:
    """The storage index of every element of the view."""
    index = xp.full(shape, offset, numpy.int64)
    for axis, (size, stride) in enumerate(zip(shape, strides)):
        steps = xp.arange(size, dtype=numpy.int64) * stride
        index += steps.reshape((size,) + (1,) * (len(shape) - axis - 1))
    return index


class AsStrided(function_node.FunctionNode):
    """``y[i] = storage[offset + sum(i_k * strides_k)]`` where ``storage`` is ``x`` flattened
    in C order; the gradient adds every output element back to its storage position."""

    def __init__(self, shape: tuple[int, ...], strides: tuple[int, ...], offset: int) -> None:
        self.shape = shape
        self.strides = strides
        self.offset = offset

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        if 0 in self.shape:
            return
        low = self.offset + sum((n - 1) * s for n, s in zip(self.shape, self.strides) if s < 0)
        high = self.offset + sum((n - 1) * s for n, s in zip(self.shape, self.strides) if s > 0)
        size = _util.eval_size(in_types[0])
        if low < 0 or high >= size:
            raise type_check.InvalidType(
                f"the view (shape={self.shape}, strides={self.strides}, storage_offset={self.offset}) lies within "
                "the x.size() elements of x",
                f"it reaches elements {low} to {high} but x.size() == {size}",
            )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        self._in_shape = x.shape
        xp = backend.get_array_module(x)
        storage = xp.ascontiguousarray(x).reshape(-1)
        if 0 in self.shape:
            return (xp.empty(self.shape, x.dtype),)
        itemsize = x.dtype.itemsize
        byte_strides = tuple(s * itemsize for s in self.strides)
        y = xp.lib.stride_tricks.as_strided(storage[self.offset :], self.shape, byte_strides)
        return (y,)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return AsStridedGrad(self._in_shape, self.shape, self.strides, self.offset).apply(grad_outputs)


class AsStridedGrad(function_node.FunctionNode):
    """Scatter-add the view's gradient into its storage (overlapping elements add up);
    the gradient of this is :func:`as_strided` again."""

    def __init__(self, in_shape: tuple[int, ...], shape: tuple[int, ...], strides: tuple[int, ...], offset: int):
        self._in_shape = in_shape
        self.shape = shape
        self.strides = strides
        self.offset = offset

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy = inputs[0]
        xp = backend.get_array_module(gy)
        size = int(numpy.prod(self._in_shape, dtype=numpy.int64))
        if gy.size == 0:
            return (xp.zeros(self._in_shape, gy.dtype),)
        index = _index_array(xp, self.shape, self.strides, self.offset)
        return (_util.scatter_add_flat(size, index, gy, gy.dtype).reshape(self._in_shape),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (as_strided(grad_outputs[0], self.shape, self.strides, self.offset),)


def as_strided(x: Any, shape: Any, strides: Any, storage_offset: int | None = None) -> variable.Variable:
    """Create a view of the elements of ``x`` with the given shape, strides and offset.

    The storage is the elements of ``x`` in C order (the current shape and strides of
    ``x`` are ignored); element ``i`` of the result is
    ``storage[storage_offset + sum(i[k] * strides[k])]``. Strides and offset count
    elements, not bytes. Elements may be read more than once (overlapping windows): their
    gradients add up.

    Args:
        x: Input variable.
        shape: Shape of the result.
        strides: Strides of the result, in elements (one per axis; may be negative).
        storage_offset: Index of the first element (default 0).

    Returns:
        The strided variable (a view of ``x`` when ``x`` is C-contiguous).

    Example:
        >>> x = np.arange(5, dtype='f')
        >>> F.as_strided(x, (3, 2), (1, 1)).array
        array([[0., 1.],
               [1., 2.],
               [2., 3.]], dtype=float32)
    """
    where = "chainer.functions.as_strided"
    shape_t = _util.as_int_tuple(shape, where, "shape")
    strides_t = _util.as_int_tuple(strides, where, "strides")
    if len(shape_t) != len(strides_t):
        raise ValueError(f"{where}: shape {shape_t} and strides {strides_t} must have the same length")
    if any(n < 0 for n in shape_t):
        raise ValueError(f"{where}: shape must not have negative entries, got {shape_t}")
    offset = 0 if storage_offset is None else _util.as_int(storage_offset, where, "storage_offset")
    if offset < 0:
        raise ValueError(f"{where}: storage_offset must not be negative, got {offset}")
    return AsStrided(shape_t, strides_t, offset).apply((x,))[0]


__all__ = ["as_strided"]
