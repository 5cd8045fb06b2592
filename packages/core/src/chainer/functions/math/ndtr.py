"""The cumulative distribution function of the standard normal distribution."""

from __future__ import annotations

import math
from typing import Any

from chainer import function_node, variable
from chainer.functions.math import _elementwise, _special

_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


class Ndtr(function_node.FunctionNode):
    @property
    def label(self) -> str:
        return "ndtr"

    def check_type_forward(self, in_types: Any) -> None:
        _elementwise.expect_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        return (_special.unary("ndtr", "chainer.functions.ndtr", inputs[0]),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # The standard normal density exp(-x^2 / 2) / sqrt(2 pi).
        from chainer.functions.math import exponential

        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] * exponential.exp(x * x * -0.5) * _INV_SQRT_2PI,)


def ndtr(x: Any) -> variable.Variable:
    """Elementwise cumulative distribution function of the standard normal distribution,
    :math:`\\Phi(x) = \\frac{1}{2}\\mathrm{erfc}(-x/\\sqrt{2})`.

    On CPU this uses SciPy when it is installed, and a slower elementwise fallback
    otherwise.

    Args:
        x: Input variable or array of a floating dtype.

    Returns:
        :math:`\\Phi(x)`, with the dtype of ``x``.

    Example:
        >>> F.ndtr(np.array([0.], 'f')).array
        array([0.5], dtype=float32)
    """
    return Ndtr().apply((x,))[0]


__all__ = ["ndtr"]
