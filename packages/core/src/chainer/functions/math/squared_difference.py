"""Elementwise squared difference of two variables."""

from __future__ import annotations

from typing import Any

from chainer import function_node, utils, variable
from chainer.functions.math import _elementwise


class SquaredDifference(function_node.FunctionNode):
    @property
    def label(self) -> str:
        return "squared_difference"

    def check_type_forward(self, in_types: Any) -> None:
        _elementwise.expect_float_broadcastable(in_types, ("x1", "x2"))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x1, x2 = inputs
        d = utils.force_array(x1 - x2)
        d *= d
        return (d,)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x1, x2 = self.get_retained_inputs()
        g = grad_outputs[0] * (x1 - x2) * 2.0
        result = []
        for i in indexes:
            if i == 0:
                result.append(_elementwise.sum_to(g, x1.shape))
            else:
                result.append(_elementwise.sum_to(-g, x2.shape))
        return tuple(result)


def squared_difference(x1: Any, x2: Any) -> variable.Variable:
    """Elementwise squared difference, :math:`(x_1 - x_2)^2`.

    ``x1`` and ``x2`` must have the same floating dtype; their shapes broadcast.

    Args:
        x1: The first input variable or array.
        x2: The second input variable or array.

    Returns:
        :math:`(x_1 - x_2)^2` in the broadcast shape.

    Example:
        >>> F.squared_difference(np.array([1., 2.], 'f'), np.array([3., 2.], 'f')).array
        array([4., 0.], dtype=float32)
    """
    return SquaredDifference().apply((x1, x2))[0]


__all__ = ["squared_difference"]
