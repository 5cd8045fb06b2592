"""Elementwise minimum of two variables."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.functions.math import _elementwise


class Minimum(function_node.FunctionNode):
    @property
    def label(self) -> str:
        return "minimum"

    def check_type_forward(self, in_types: Any) -> None:
        _elementwise.expect_float_broadcastable(in_types, ("x1", "x2"))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x1, x2 = inputs
        return (utils.force_array(backend.get_array_module(x1).minimum(x1, x2)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # The gradient goes to the smaller input; to x1 on ties.
        x1, x2 = self.get_retained_inputs()
        x1_wins = x1.array <= x2.array
        gy = grad_outputs[0]
        result = []
        for i in indexes:
            if i == 0:
                result.append(_elementwise.sum_to(_elementwise.masked(x1_wins, gy), x1.shape))
            else:
                result.append(_elementwise.sum_to(_elementwise.masked(~x1_wins, gy), x2.shape))
        return tuple(result)


def minimum(x1: Any, x2: Any) -> variable.Variable:
    """Elementwise minimum of two variables.

    ``x1`` and ``x2`` must have the same floating dtype; their shapes broadcast. The
    gradient goes to the smaller input, and to ``x1`` where they are equal.

    Args:
        x1: The first input variable or array.
        x2: The second input variable or array.

    Returns:
        :math:`\\min(x_1, x_2)` in the broadcast shape.

    Example:
        >>> F.minimum(np.array([1., 4.], 'f'), np.array([3., 2.], 'f')).array
        array([1., 2.], dtype=float32)
    """
    return Minimum().apply((x1, x2))[0]


__all__ = ["minimum"]
