"""Elementwise squared error."""

from __future__ import annotations

from typing import Any

from chainer import function_node, utils, variable
from chainer.functions.loss import _pairwise
from chainer.functions.math import squared_difference as squared_difference_module


class SquaredError(function_node.FunctionNode):
    """:math:`(x_0 - x_1)^2` elementwise."""

    def check_type_forward(self, in_types: Any) -> None:
        _pairwise.check_same_float_arrays(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x0, x1 = inputs
        diff = x0 - x1
        return (utils.force_array(diff * diff, x0.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x0, x1 = self.get_retained_inputs()
        gx0 = grad_outputs[0] * (x0 - x1) * 2.0
        return tuple(gx0 if i == 0 else -gx0 for i in indexes)


def squared_error(x0: Any, x1: Any) -> variable.Variable:
    """Elementwise squared error, :math:`(x_0 - x_1)^2`.

    Args:
        x0: Input variable of a floating dtype.
        x1: Input variable of the same dtype and shape.

    Returns:
        A variable of the inputs' shape and dtype.

    Example:
        >>> F.squared_error(np.array([1., 2.], 'f'), np.array([0., 4.], 'f')).array
        array([1., 4.], dtype=float32)
    """
    return SquaredError().apply((x0, x1))[0]


# Chainer's module also held squared_difference, whose home is chainer.functions.math.
squared_difference = squared_difference_module.squared_difference

__all__ = ["squared_error"]
