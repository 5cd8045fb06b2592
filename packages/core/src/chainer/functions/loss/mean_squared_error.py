"""Mean squared error."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import function_node, utils, variable
from chainer.functions.loss import _pairwise


class MeanSquaredError(function_node.FunctionNode):
    """:math:`\\frac{1}{n} \\sum_i (x_{0,i} - x_{1,i})^2` over all ``n`` elements."""

    def check_type_forward(self, in_types: Any) -> None:
        _pairwise.check_same_float_arrays(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x0, x1 = inputs
        diff = (x0 - x1).ravel()
        if diff.dtype == numpy.float16:
            diff = diff.astype(numpy.float32)  # accumulate half precision in single
        with numpy.errstate(invalid="ignore"):  # an empty input has no mean: NaN
            y = diff.dot(diff) / diff.dtype.type(diff.size)
        return (utils.force_array(y, x0.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.array import broadcast

        x0, x1 = self.get_retained_inputs()
        diff = x0 - x1
        gx0 = broadcast.broadcast_to(grad_outputs[0] * (2.0 / max(diff.size, 1)), diff.shape) * diff
        return tuple(gx0 if i == 0 else -gx0 for i in indexes)


def mean_squared_error(x0: Any, x1: Any) -> variable.Variable:
    """Mean squared error between two arrays of the same shape.

    Computes :math:`\\frac{1}{n} \\sum_i (x_{0,i} - x_{1,i})^2` over all ``n`` elements.
    Both inputs are differentiable, to any order.

    Args:
        x0: Input variable of a floating dtype.
        x1: Input variable of the same dtype and shape.

    Returns:
        A scalar variable of the inputs' dtype.

    Example:
        >>> F.mean_squared_error(np.array([1., 2.], 'f'), np.array([0., 0.], 'f')).array
        array(2.5, dtype=float32)
    """
    return MeanSquaredError().apply((x0, x1))[0]


__all__ = ["mean_squared_error"]
