"""Hyperbolic sine and cosine."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.functions.math import _elementwise


class Sinh(function_node.FunctionNode):
    @property
    def label(self) -> str:
        return "sinh"

    def check_type_forward(self, in_types: Any) -> None:
        _elementwise.expect_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        (x,) = inputs
        return (utils.force_array(backend.get_array_module(x).sinh(x)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] * cosh(x),)


class Cosh(function_node.FunctionNode):
    @property
    def label(self) -> str:
        return "cosh"

    def check_type_forward(self, in_types: Any) -> None:
        _elementwise.expect_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        (x,) = inputs
        return (utils.force_array(backend.get_array_module(x).cosh(x)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] * sinh(x),)


def sinh(x: Any) -> variable.Variable:
    """Elementwise hyperbolic sine, :math:`(e^x - e^{-x}) / 2`.

    Args:
        x: Input variable or array of a floating dtype.

    Returns:
        :math:`\\sinh x`, with the dtype of ``x``.

    Example:
        >>> F.sinh(np.array([0.], 'f')).array
        array([0.], dtype=float32)
    """
    return Sinh().apply((x,))[0]


def cosh(x: Any) -> variable.Variable:
    """Elementwise hyperbolic cosine, :math:`(e^x + e^{-x}) / 2`.

    Args:
        x: Input variable or array of a floating dtype.

    Returns:
        :math:`\\cosh x`, with the dtype of ``x``.

    Example:
        >>> F.cosh(np.array([0.], 'f')).array
        array([1.], dtype=float32)
    """
    return Cosh().apply((x,))[0]


__all__ = ["cosh", "sinh"]
