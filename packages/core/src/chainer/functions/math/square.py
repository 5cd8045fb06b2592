"""Elementwise square."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.functions.math import _elementwise


class Square(function_node.FunctionNode):
    @property
    def label(self) -> str:
        return "square"

    def check_type_forward(self, in_types: Any) -> None:
        _elementwise.expect_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        (x,) = inputs
        return (utils.force_array(backend.get_array_module(x).square(x)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] * (x * 2.0),)


def square(x: Any) -> variable.Variable:
    """Elementwise square, :math:`x^2`.

    Args:
        x: Input variable or array of a floating dtype.

    Returns:
        :math:`x^2`, with the dtype of ``x``.

    Example:
        >>> F.square(np.array([-3.], 'f')).array
        array([9.], dtype=float32)
    """
    return Square().apply((x,))[0]


__all__ = ["square"]
