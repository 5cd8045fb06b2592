"""Swapping two axes."""

from __future__ import annotations

from typing import Any

from chainer import function_node, variable
from chainer.functions.array import _util
from chainer.utils import type_check


class Swapaxes(function_node.FunctionNode):
    """Interchange ``axis1`` and ``axis2``; the gradient swaps them back."""

    def __init__(self, axis1: int, axis2: int) -> None:
        self.axis1 = axis1
        self.axis2 = axis2

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        _util.expect_axis(in_types[0], self.axis1, "axis1")
        _util.expect_axis(in_types[0], self.axis2, "axis2")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (inputs[0].swapaxes(self.axis1, self.axis2),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return Swapaxes(self.axis1, self.axis2).apply(grad_outputs)


def swapaxes(x: Any, axis1: int, axis2: int) -> variable.Variable:
    """Swap two axes (a view, no copy).

    Args:
        x: Input variable.
        axis1: First axis.
        axis2: Second axis.

    Returns:
        The variable with the two axes interchanged.

    Example:
        >>> F.swapaxes(np.zeros((2, 3, 4), 'f'), 0, 2).shape
        (4, 3, 2)
    """
    where = "chainer.functions.swapaxes"
    return Swapaxes(_util.as_int(axis1, where, "axis1"), _util.as_int(axis2, where, "axis2")).apply((x,))[0]


__all__ = ["swapaxes"]
