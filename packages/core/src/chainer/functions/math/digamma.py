"""The digamma function."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, function_node, variable
from chainer.functions.math import _elementwise, _special


class DiGamma(function_node.FunctionNode):
    @property
    def label(self) -> str:
        return "digamma"

    def check_type_forward(self, in_types: Any) -> None:
        _elementwise.expect_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        return (_special.unary("digamma", "chainer.functions.digamma", inputs[0]),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.math import polygamma

        (x,) = self.get_retained_inputs()
        one = backend.get_array_module(x.array).ones((), numpy.int32)
        return (grad_outputs[0] * polygamma.polygamma(one, x),)


def digamma(x: Any) -> variable.Variable:
    """Elementwise digamma function, :math:`\\psi(x) = \\frac{d}{dx}\\log\\Gamma(x)`.

    Its derivative is :func:`~chainer.functions.polygamma` of order 1. Needs SciPy on CPU.

    Args:
        x: Input variable or array of a floating dtype.

    Returns:
        :math:`\\psi(x)`, with the dtype of ``x``.

    Raises:
        ImportError: SciPy is not installed and ``x`` is on CPU.

    Example:
        >>> F.digamma(np.array([1.], 'f')).array
        array([-0.5772157], dtype=float32)
    """
    return DiGamma().apply((x,))[0]


__all__ = ["digamma"]
