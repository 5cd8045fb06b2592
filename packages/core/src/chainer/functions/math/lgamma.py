"""The logarithm of the gamma function."""

from __future__ import annotations

from typing import Any

from chainer import function_node, variable
from chainer.functions.math import _elementwise, _special


class LGamma(function_node.FunctionNode):
    @property
    def label(self) -> str:
        return "lgamma"

    def check_type_forward(self, in_types: Any) -> None:
        _elementwise.expect_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        return (_special.unary("gammaln", "chainer.functions.lgamma", inputs[0]),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.math import digamma

        (x,) = self.get_retained_inputs()
        return (grad_outputs[0] * digamma.digamma(x),)


def lgamma(x: Any) -> variable.Variable:
    """Elementwise logarithm of the absolute value of the gamma function,
    :math:`\\log|\\Gamma(x)|`.

    Its derivative is :func:`~chainer.functions.digamma`. On CPU this uses SciPy when
    it is installed, and a slower elementwise fallback otherwise.

    Args:
        x: Input variable or array of a floating dtype.

    Returns:
        :math:`\\log|\\Gamma(x)|`, with the dtype of ``x`` (:math:`+\\infty` at the poles
        :math:`0, -1, -2, \\dots`).

    Example:
        >>> F.lgamma(np.array([1., 3.], 'f')).array
        array([0.       , 0.6931472], dtype=float32)
    """
    return LGamma().apply((x,))[0]


__all__ = ["lgamma"]
