"""The inverse complementary error function."""

from __future__ import annotations

import math
from typing import Any

from chainer import function_node, variable
from chainer.functions.math import _elementwise, _special

# The constant factor of the derivative (Chainer 7's name, spelling included).
BACKWORDC = -math.sqrt(math.pi) / 2.0


class ErfcInv(function_node.FunctionNode):
    @property
    def label(self) -> str:
        return "erfcinv"

    def check_type_forward(self, in_types: Any) -> None:
        _elementwise.expect_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        return (_special.unary("erfcinv", "chainer.functions.erfcinv", inputs[0]),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # The inverse function's derivative: 1 / erfc'(y) = -sqrt(pi) / 2 * e^{y^2}.
        from chainer.functions.math import exponential

        (y,) = self.get_retained_outputs()
        return (grad_outputs[0] * exponential.exp(y * y) * BACKWORDC,)


def erfcinv(x: Any) -> variable.Variable:
    """Elementwise inverse of the complementary error function: ``y`` with
    :math:`\\mathrm{erfc}(y) = x`.

    Needs SciPy on CPU.

    Args:
        x: Input variable or array of a floating dtype, in :math:`[0, 2]`.

    Returns:
        :math:`\\mathrm{erfc}^{-1}(x)`: :math:`+\\infty` at 0, :math:`-\\infty` at 2, NaN
        outside.

    Raises:
        ImportError: SciPy is not installed and ``x`` is on CPU.

    Example:
        >>> F.erfcinv(np.array([0.5], 'f')).array
        array([0.47693628], dtype=float32)
    """
    return ErfcInv().apply((x,))[0]


# available_cpu: whether SciPy, which computes this function on CPU, is installed.
__getattr__ = _special.available_cpu_attribute(__name__)

__all__ = ["erfcinv"]
