"""Rounding up (not differentiable)."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.functions.math import _elementwise


class Ceil(function_node.FunctionNode):
    @property
    def label(self) -> str:
        return "ceil"

    def check_type_forward(self, in_types: Any) -> None:
        _elementwise.expect_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        return (utils.force_array(backend.get_array_module(x).ceil(x)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # Piecewise constant: the gradient is zero wherever it exists.
        return (None,)


def ceil(x: Any) -> variable.Variable:
    """Elementwise ceiling: the smallest integer not less than ``x``.

    The result carries no gradient (the function is piecewise constant), as in Chainer.

    Args:
        x: Input variable or array of a floating dtype.

    Returns:
        :math:`\\lceil x \\rceil` as a floating variable of the dtype of ``x``.

    Example:
        >>> F.ceil(np.array([-1.5, 1.5], 'f')).array
        array([-1.,  2.], dtype=float32)
    """
    return Ceil().apply((x,))[0]


__all__ = ["ceil"]
