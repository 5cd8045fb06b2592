"""Rounding down (not differentiable)."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.functions.math import _elementwise


class Floor(function_node.FunctionNode):
    @property
    def label(self) -> str:
        return "floor"

    def check_type_forward(self, in_types: Any) -> None:
        _elementwise.expect_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        return (utils.force_array(backend.get_array_module(x).floor(x)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # Piecewise constant: the gradient is zero wherever it exists.
        return (None,)


def floor(x: Any) -> variable.Variable:
    """Elementwise floor: the largest integer not greater than ``x``.

    The result carries no gradient (the function is piecewise constant), as in Chainer.

    Args:
        x: Input variable or array of a floating dtype.

    Returns:
        :math:`\\lfloor x \\rfloor` as a floating variable of the dtype of ``x``.

    Example:
        >>> F.floor(np.array([-1.5, 1.5], 'f')).array
        array([-2.,  1.], dtype=float32)
    """
    return Floor().apply((x,))[0]


__all__ = ["floor"]
