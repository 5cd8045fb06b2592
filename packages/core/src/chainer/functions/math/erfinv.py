"""The inverse error function."""

from __future__ import annotations

import math
from typing import Any

from chainer import function_node, variable
from chainer.functions.math import _elementwise, _special

# The constant factor of the derivative (Chainer 7's name, spelling included).
BACKWORDC = math.sqrt(math.pi) / 2.0


class ErfInv(function_node.FunctionNode):
    @property
    def label(self) -> str:
        return "erfinv"

    def check_type_forward(self, in_types: Any) -> None:
        _elementwise.expect_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        return (_special.unary("erfinv", "chainer.functions.erfinv", inputs[0]),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # The inverse function's derivative: 1 / erf'(y) = sqrt(pi) / 2 * e^{y^2}.
        from chainer.functions.math import exponential

        (y,) = self.get_retained_outputs()
        return (grad_outputs[0] * exponential.exp(y * y) * BACKWORDC,)


def erfinv(x: Any) -> variable.Variable:
    """Elementwise inverse of the error function: ``y`` with :math:`\\mathrm{erf}(y) = x`.

    Needs SciPy on CPU.

    Args:
        x: Input variable or array of a floating dtype, in :math:`[-1, 1]`.

    Returns:
        :math:`\\mathrm{erf}^{-1}(x)`: :math:`\\pm\\infty` at :math:`\\pm 1`, NaN outside.

    Raises:
        ImportError: SciPy is not installed and ``x`` is on CPU.

    Example:
        >>> F.erfinv(np.array([0.], 'f')).array
        array([0.], dtype=float32)
    """
    return ErfInv().apply((x,))[0]


# available_cpu: whether SciPy, which computes this function on CPU, is installed.
__getattr__ = _special.available_cpu_attribute(__name__)

__all__ = ["erfinv"]
