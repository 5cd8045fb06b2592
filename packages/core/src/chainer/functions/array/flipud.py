"""Flipping a variable up/down (along its first axis)."""

from __future__ import annotations

from typing import Any

from chainer import function_node, variable
from chainer.utils import type_check


class FlipUD(function_node.FunctionNode):
    """Reverse the first axis; the gradient is flipped back."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("a",))
        type_check.expect(in_types[0].ndim >= 1)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (inputs[0][::-1],)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return FlipUD().apply(grad_outputs)


def flipud(a: Any) -> variable.Variable:
    """Flip an array in the up/down direction (reverse axis 0; a view).

    Args:
        a: Input variable of at least one dimension.

    Returns:
        The flipped variable.

    Example:
        >>> F.flipud(np.array([[1, 2], [3, 4]], 'f')).array
        array([[3., 4.],
               [1., 2.]], dtype=float32)
    """
    return FlipUD().apply((a,))[0]


__all__ = ["flipud"]
