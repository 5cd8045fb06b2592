"""The inverse of the standard normal cumulative distribution function."""

from __future__ import annotations

import math
from typing import Any

from chainer import function_node, variable
from chainer.functions.math import _elementwise, _special

_SQRT_2PI = math.sqrt(2.0 * math.pi)


class Ndtri(function_node.FunctionNode):
    @property
    def label(self) -> str:
        return "ndtri"

    def check_type_forward(self, in_types: Any) -> None:
        _elementwise.expect_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        return (_special.unary("ndtri", "chainer.functions.ndtri", inputs[0]),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # The inverse function's derivative: 1 / density(y) = sqrt(2 pi) exp(y^2 / 2).
        from chainer.functions.math import exponential

        (y,) = self.get_retained_outputs()
        return (grad_outputs[0] * exponential.exp(y * y * 0.5) * _SQRT_2PI,)


def ndtri(x: Any) -> variable.Variable:
    """Elementwise inverse of :func:`~chainer.functions.ndtr`: the quantile function of
    the standard normal distribution.

    Needs SciPy on CPU.

    Args:
        x: Input variable or array of a floating dtype, in :math:`[0, 1]`.

    Returns:
        :math:`\\Phi^{-1}(x)`: :math:`-\\infty` at 0, :math:`+\\infty` at 1, NaN outside.

    Raises:
        ImportError: SciPy is not installed and ``x`` is on CPU.

    Example:
        >>> F.ndtri(np.array([0.5], 'f')).array
        array([0.], dtype=float32)
    """
    return Ndtri().apply((x,))[0]


# available_cpu: whether SciPy, which computes this function on CPU, is installed.
__getattr__ = _special.available_cpu_attribute(__name__)

__all__ = ["ndtri"]
