"""The scaled complementary error function."""

from __future__ import annotations

import math
from typing import Any

from chainer import function_node, variable
from chainer.functions.math import _elementwise, _special

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


class Erfcx(function_node.FunctionNode):
    @property
    def label(self) -> str:
        return "erfcx"

    def check_type_forward(self, in_types: Any) -> None:
        _elementwise.expect_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        return (_special.unary("erfcx", "chainer.functions.erfcx", inputs[0]),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # d/dx [e^{x^2} erfc(x)] = 2 x erfcx(x) - 2 / sqrt(pi)
        (x,) = self.get_retained_inputs()
        (y,) = self.get_retained_outputs()
        return (grad_outputs[0] * (x * y * 2.0 - _TWO_OVER_SQRT_PI),)


def erfcx(x: Any) -> variable.Variable:
    """Elementwise scaled complementary error function, :math:`e^{x^2}\\mathrm{erfc}(x)`.

    Finite where :math:`\\mathrm{erfc}(x)` underflows (large positive ``x``). Needs SciPy
    on CPU.

    Args:
        x: Input variable or array of a floating dtype.

    Returns:
        :math:`\\mathrm{erfcx}(x)`, with the dtype of ``x``.

    Raises:
        ImportError: SciPy is not installed and ``x`` is on CPU.

    Example:
        >>> F.erfcx(np.array([0.], 'f')).array
        array([1.], dtype=float32)
    """
    return Erfcx().apply((x,))[0]


# available_cpu: whether SciPy, which computes this function on CPU, is installed.
__getattr__ = _special.available_cpu_attribute(__name__)

__all__ = ["erfcx"]
