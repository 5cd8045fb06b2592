"""Mean absolute error."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, function_node, utils, variable
from chainer.functions.loss import _pairwise


class MeanAbsoluteError(function_node.FunctionNode):
    """:math:`\\frac{1}{n} \\sum_i |x_{0,i} - x_{1,i}|` over all ``n`` elements."""

    def check_type_forward(self, in_types: Any) -> None:
        _pairwise.check_same_float_arrays(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x0, x1 = inputs
        diff = x0 - x1
        self._sign = backend.get_array_module(diff).sign(diff)
        acc = numpy.float32 if diff.dtype == numpy.float16 else diff.dtype.type
        with numpy.errstate(invalid="ignore"):  # an empty input has no mean: NaN
            y = abs(diff).sum(dtype=acc) / acc(diff.size)
        return (utils.force_array(y, x0.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.array import broadcast

        sign = self._sign
        gx0 = broadcast.broadcast_to(grad_outputs[0] * (1.0 / max(sign.size, 1)), sign.shape) * sign
        return tuple(gx0 if i == 0 else -gx0 for i in indexes)


def mean_absolute_error(x0: Any, x1: Any) -> variable.Variable:
    """Mean absolute error between two arrays of the same shape.

    Computes :math:`\\frac{1}{n} \\sum_i |x_{0,i} - x_{1,i}|` over all ``n`` elements.
    Where ``x0 == x1`` the subgradient 0 is used.

    Args:
        x0: Input variable of a floating dtype.
        x1: Input variable of the same dtype and shape.

    Returns:
        A scalar variable of the inputs' dtype.

    Example:
        >>> F.mean_absolute_error(np.array([1., -3.], 'f'), np.array([0., 0.], 'f')).array
        array(2., dtype=float32)
    """
    return MeanAbsoluteError().apply((x0, x1))[0]


__all__ = ["mean_absolute_error"]
