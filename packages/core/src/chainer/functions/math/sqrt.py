"""Square root and its reciprocal."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, function_node, utils, variable
from chainer.functions.math import _elementwise


class Sqrt(function_node.FunctionNode):
    @property
    def label(self) -> str:
        return "sqrt"

    def check_type_forward(self, in_types: Any) -> None:
        _elementwise.expect_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        (x,) = inputs
        return (utils.force_array(backend.get_array_module(x).sqrt(x)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # d/dx sqrt(x) = 1 / (2 sqrt(x)), from the output.
        (y,) = self.get_retained_outputs()
        return (grad_outputs[0] / (y * 2.0),)


class Rsqrt(function_node.FunctionNode):
    @property
    def label(self) -> str:
        return "rsqrt"

    def check_type_forward(self, in_types: Any) -> None:
        _elementwise.expect_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        (x,) = inputs
        xp = backend.get_array_module(x)
        y = utils.force_array(xp.sqrt(x))
        # In place: y is a fresh array, so this saves a temporary of the input's size.
        xp.reciprocal(y, out=y)
        return (y,)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # d/dx x^{-1/2} = -x^{-3/2} / 2 = -y / (2 x)
        (x,) = self.get_retained_inputs()
        (y,) = self.get_retained_outputs()
        return (grad_outputs[0] * y / x * -0.5,)


class RsqrtGPU(Rsqrt):
    """The node of :func:`rsqrt` for CuPy arrays (Chainer 7's name for it)."""


def sqrt(x: Any) -> variable.Variable:
    """Elementwise square root.

    Args:
        x: Input variable or array of a floating dtype, non-negative.

    Returns:
        :math:`\\sqrt{x}`, with the dtype of ``x``. The gradient is infinite at zero.

    Example:
        >>> F.sqrt(np.array([4.], 'f')).array
        array([2.], dtype=float32)
    """
    return Sqrt().apply((x,))[0]


def rsqrt(x: Any) -> variable.Variable:
    """Elementwise reciprocal of the square root, :math:`1 / \\sqrt{x}`.

    Args:
        x: Input variable or array of a floating dtype, positive.

    Returns:
        :math:`x^{-1/2}`, with the dtype of ``x``.

    Example:
        >>> F.rsqrt(np.array([4.], 'f')).array
        array([0.5], dtype=float32)
    """
    array = x.array if isinstance(x, variable.Variable) else x
    node = Rsqrt() if isinstance(array, numpy.ndarray) else RsqrtGPU()
    return node.apply((x,))[0]


__all__ = ["rsqrt", "sqrt"]
