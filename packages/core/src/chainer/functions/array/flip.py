"""Reversing a variable along an axis."""

from __future__ import annotations

from typing import Any

from chainer import function_node, variable
from chainer.functions.array import _util
from chainer.utils import type_check


def _flip(array: Any, axis: int) -> Any:
    """``array`` reversed along ``axis`` (a view; ``numpy.flip`` on NumPy or CuPy arrays)."""
    index = [slice(None)] * array.ndim
    index[axis] = slice(None, None, -1)
    return array[tuple(index)]


class Flip(function_node.FunctionNode):
    """Reverse the order of elements along ``axis``; the gradient is flipped back."""

    def __init__(self, axis: int) -> None:
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].ndim > 0)
        _util.expect_axis(in_types[0], self.axis)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (_flip(inputs[0], self.axis),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return Flip(self.axis).apply(grad_outputs)


def flip(x: Any, axis: int) -> variable.Variable:
    """Reverse the order of elements along an axis (a view).

    Args:
        x: Input variable of at least one dimension.
        axis: The axis to reverse.

    Returns:
        The flipped variable.

    Example:
        >>> F.flip(np.array([[1, 2], [3, 4]], 'f'), 1).array
        array([[2., 1.],
               [4., 3.]], dtype=float32)
    """
    return Flip(_util.as_int(axis, "chainer.functions.flip", "axis")).apply((x,))[0]


__all__ = ["flip"]
