"""Flipping a variable left/right (along its second axis)."""

from __future__ import annotations

from typing import Any

from chainer import function_node, variable
from chainer.utils import type_check


class FlipLR(function_node.FunctionNode):
    """Reverse the second axis; the gradient is flipped back."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("a",))
        type_check.expect(in_types[0].ndim >= 2)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (inputs[0][:, ::-1],)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return FlipLR().apply(grad_outputs)


def fliplr(a: Any) -> variable.Variable:
    """Flip an array in the left/right direction (reverse axis 1; a view).

    Args:
        a: Input variable of at least two dimensions.

    Returns:
        The flipped variable.

    Example:
        >>> F.fliplr(np.array([[1, 2], [3, 4]], 'f')).array
        array([[2., 1.],
               [4., 3.]], dtype=float32)
    """
    return FlipLR().apply((a,))[0]


__all__ = ["fliplr"]
