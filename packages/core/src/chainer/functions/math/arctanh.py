"""The inverse hyperbolic tangent."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.functions.math import _elementwise


class Arctanh(function_node.FunctionNode):
    @property
    def label(self) -> str:
        return "arctanh"

    def check_type_forward(self, in_types: Any) -> None:
        _elementwise.expect_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        (x,) = inputs
        return (utils.force_array(backend.get_array_module(x).arctanh(x)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] / (1 - x * x),)


def arctanh(x: Any) -> variable.Variable:
    """Elementwise inverse hyperbolic tangent, :math:`\\frac{1}{2}\\log\\frac{1 + x}{1 - x}`.

    Args:
        x: Input variable or array of a floating dtype, in :math:`(-1, 1)`.

    Returns:
        :math:`\\tanh^{-1} x`; :math:`\\pm\\infty` at :math:`\\pm 1`.

    Example:
        >>> F.arctanh(np.array([0.], 'f')).array
        array([0.], dtype=float32)
    """
    return Arctanh().apply((x,))[0]


__all__ = ["arctanh"]
