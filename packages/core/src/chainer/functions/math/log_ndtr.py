"""The logarithm of the standard normal cumulative distribution function."""

from __future__ import annotations

import math
from typing import Any

from chainer import function_node, variable
from chainer.functions.math import _elementwise, _special

_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_MINUS_INV_SQRT2 = -1.0 / math.sqrt(2.0)


class LogNdtr(function_node.FunctionNode):
    @property
    def label(self) -> str:
        return "log_ndtr"

    def check_type_forward(self, in_types: Any) -> None:
        _elementwise.expect_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        return (_special.unary("log_ndtr", "chainer.functions.log_ndtr", inputs[0]),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # phi(x) / Phi(x) = sqrt(2 / pi) / erfcx(-x / sqrt(2)): finite and accurate for very
        # negative x, where phi and Phi both underflow.
        from chainer.functions.math import erfcx

        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] / erfcx.erfcx(x * _MINUS_INV_SQRT2) * _SQRT_2_OVER_PI,)


def log_ndtr(x: Any) -> variable.Variable:
    """Elementwise logarithm of :func:`~chainer.functions.ndtr`,
    :math:`\\log\\Phi(x)`, accurate also far in the lower tail.

    Needs SciPy on CPU.

    Args:
        x: Input variable or array of a floating dtype.

    Returns:
        :math:`\\log\\Phi(x)`, with the dtype of ``x``.

    Raises:
        ImportError: SciPy is not installed and ``x`` is on CPU.

    Example:
        >>> F.log_ndtr(np.array([0.], 'f')).array
        array([-0.6931472], dtype=float32)
    """
    return LogNdtr().apply((x,))[0]


__all__ = ["log_ndtr"]
