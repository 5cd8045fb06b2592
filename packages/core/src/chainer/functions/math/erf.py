"""The error function."""

from __future__ import annotations

import math
from typing import Any

from chainer import function_node, variable
from chainer.functions.math import _elementwise, _special

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


class Erf(function_node.FunctionNode):
    @property
    def label(self) -> str:
        return "erf"

    def check_type_forward(self, in_types: Any) -> None:
        _elementwise.expect_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        return (_special.unary("erf", "chainer.functions.erf", inputs[0]),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.math import exponential

        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] * exponential.exp(-(x * x)) * _TWO_OVER_SQRT_PI,)


def erf(x: Any) -> variable.Variable:
    """Elementwise error function, :math:`\\frac{2}{\\sqrt\\pi}\\int_0^x e^{-t^2} dt`.

    On CPU this uses SciPy when it is installed, and a slower elementwise fallback
    otherwise.

    Args:
        x: Input variable or array of a floating dtype.

    Returns:
        :math:`\\mathrm{erf}(x)`, with the dtype of ``x``.

    Example:
        >>> F.erf(np.array([0.], 'f')).array
        array([0.], dtype=float32)
    """
    return Erf().apply((x,))[0]


__all__ = ["erf"]
