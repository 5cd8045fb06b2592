"""Elementwise absolute error."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.functions.loss import _pairwise


class AbsoluteError(function_node.FunctionNode):
    """:math:`|x_0 - x_1|` elementwise."""

    def check_type_forward(self, in_types: Any) -> None:
        _pairwise.check_same_float_arrays(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x0, x1 = inputs
        diff = x0 - x1
        self._sign = backend.get_array_module(diff).sign(diff)
        return (utils.force_array(abs(diff), x0.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gx0 = grad_outputs[0] * self._sign
        return tuple(gx0 if i == 0 else -gx0 for i in indexes)


def absolute_error(x0: Any, x1: Any) -> variable.Variable:
    """Elementwise absolute error, :math:`|x_0 - x_1|`.

    Where ``x0 == x1`` the subgradient 0 is used.

    Args:
        x0: Input variable of a floating dtype.
        x1: Input variable of the same dtype and shape.

    Returns:
        A variable of the inputs' shape and dtype.

    Example:
        >>> F.absolute_error(np.array([1., -2.], 'f'), np.array([0., 0.], 'f')).array
        array([1., 2.], dtype=float32)
    """
    return AbsoluteError().apply((x0, x1))[0]


__all__ = ["absolute_error"]
