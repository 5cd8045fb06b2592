"""Stacking variables along a new axis."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer import backend, function_node, variable
from chainer.functions.array import _util
from chainer.utils import type_check


class Stack(function_node.FunctionNode):
    """Join same-shaped inputs along a new ``axis``; the gradient is :func:`separate`."""

    def __init__(self, axis: int) -> None:
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() > 0)
        _util.expect_axis(in_types[0], self.axis, new_axis=True)
        _util.expect_same_dtypes_and_shapes(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        xp = backend.get_array_module(*inputs)
        return (xp.stack(inputs, axis=self.axis),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.array import separate

        return separate.separate(grad_outputs[0], self.axis)


def stack(xs: Sequence[Any], axis: int = 0) -> variable.Variable:
    """Stack variables of one shape along a new axis.

    Args:
        xs: Variables or arrays of the same shape and dtype.
        axis: Position of the new axis in the result, ``-x.ndim - 1 <= axis <= x.ndim``.

    Returns:
        A variable with one more dimension than the inputs.

    Example:
        >>> F.stack([np.zeros(2, 'f'), np.ones(2, 'f')], axis=1).array
        array([[0., 1.],
               [0., 1.]], dtype=float32)
    """
    axis = _util.as_int(axis, "chainer.functions.stack", "axis")
    if isinstance(xs, variable.Variable) or hasattr(xs, "dtype"):
        raise TypeError("chainer.functions.stack: xs must be a sequence of variables or arrays, not a single one")
    return Stack(axis).apply(tuple(xs))[0]


__all__ = ["stack"]
