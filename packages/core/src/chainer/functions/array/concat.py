"""Concatenation of variables along an existing axis."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer import backend, function_node, variable
from chainer.functions.array import _util
from chainer.utils import type_check


class Concat(function_node.FunctionNode):
    """Concatenate the inputs along ``axis``; the gradient is split back with :func:`split_axis`."""

    def __init__(self, axis: int) -> None:
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() > 0)
        _util.expect_axis(in_types[0], self.axis)
        _util.expect_same_dtypes_and_shapes(in_types, skip_axis=self.axis)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        axis = self.axis
        indices = []
        offset = 0
        for x in inputs[:-1]:
            offset += x.shape[axis]
            indices.append(offset)
        self._indices = tuple(indices)
        xp = backend.get_array_module(*inputs)
        return (xp.concatenate(inputs, axis=axis),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.array import split_axis

        return split_axis.split_axis(grad_outputs[0], self._indices, self.axis, force_tuple=True)


def concat(xs: Sequence[Any], axis: int = 1) -> variable.Variable:
    """Concatenate variables along an axis.

    Args:
        xs: Variables or arrays of one dtype whose shapes agree except along ``axis``.
        axis: The axis to join along (negative counts from the end).

    Returns:
        The concatenated variable.

    Example:
        >>> a = np.zeros((2, 1), 'f'); b = np.ones((2, 2), 'f')
        >>> F.concat((a, b)).array
        array([[0., 1., 1.],
               [0., 1., 1.]], dtype=float32)
    """
    axis = _util.as_int(axis, "chainer.functions.concat", "axis")
    if isinstance(xs, (variable.Variable,)) or hasattr(xs, "dtype"):
        raise TypeError("chainer.functions.concat: xs must be a sequence of variables or arrays, not a single one")
    return Concat(axis).apply(tuple(xs))[0]


__all__ = ["concat"]
