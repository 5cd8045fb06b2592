"""Rounding towards zero (not differentiable)."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.functions.math import _elementwise


class Fix(function_node.FunctionNode):
    @property
    def label(self) -> str:
        return "fix"

    def check_type_forward(self, in_types: Any) -> None:
        _elementwise.expect_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        # trunc rounds towards zero like numpy.fix, in one ufunc call instead of two.
        return (utils.force_array(backend.get_array_module(x).trunc(x)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # Piecewise constant: the gradient is zero wherever it exists.
        return (None,)


def fix(x: Any) -> variable.Variable:
    """Elementwise rounding towards zero (truncation).

    The result carries no gradient (the function is piecewise constant), as in Chainer.

    Args:
        x: Input variable or array of a floating dtype.

    Returns:
        :math:`\\mathrm{sign}(x)\\lfloor |x| \\rfloor` as a floating variable of the dtype of ``x``.

    Example:
        >>> F.fix(np.array([-1.5, 1.5], 'f')).array
        array([-1.,  1.], dtype=float32)
    """
    return Fix().apply((x,))[0]


__all__ = ["fix"]
