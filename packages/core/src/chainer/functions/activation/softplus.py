"""Softplus, a smooth approximation of the rectifier."""

from __future__ import annotations

import numbers
from typing import Any

import numpy

from chainer import backend, function_node, utils, variable
from chainer.functions import _composite
from chainer.utils import type_check


class Softplus(function_node.FunctionNode):
    """:math:`\\frac{1}{\\beta} \\log(1 + e^{\\beta x})`."""

    def __init__(self, beta: float) -> None:
        if isinstance(beta, numpy.ndarray) and beta.ndim == 0 and beta.dtype.kind in "iuf":
            # A 0-dimensional array is a number too (Chainer takes one).
            beta = beta.item()
        if not isinstance(beta, numbers.Real) or isinstance(beta, bool) or beta == 0:
            raise ValueError(f"chainer.functions.softplus: beta must be a nonzero real number, got {beta!r}")
        self.beta = float(beta)

    @property
    def label(self) -> str:
        return "Softplus"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x = inputs[0]
        xp = backend.get_array_module(x)
        bx = x * x.dtype.type(self.beta)
        # log(1 + e^v) = max(v, 0) + log1p(e^-|v|): exact and free of overflow.
        y = (xp.maximum(bx, 0) + xp.log1p(xp.exp(-abs(bx)))) * x.dtype.type(1 / self.beta)
        return (utils.force_array(y, x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        return (_grad(x, grad_outputs[0], self.beta),)


def _grad(x: Any, gy: Any, beta: float) -> Any:
    from chainer.functions.activation import sigmoid

    return gy * sigmoid.sigmoid(x * beta)


class SoftplusGrad(_composite.CompositeNode):
    """The gradient ``gy * sigmoid(beta x)`` of the softplus from ``(x, gy)``;
    differentiable again.

    Args:
        beta: The softplus's :math:`\\beta`.
    """

    def __init__(self, beta: float = 1.0) -> None:
        self.beta = Softplus(beta).beta

    def composite(self, x: Any, gy: Any) -> Any:
        return _grad(x, gy, self.beta)


def softplus(x: Any, beta: float = 1.0) -> variable.Variable:
    """Elementwise softplus, :math:`\\frac{1}{\\beta} \\log(1 + \\exp(\\beta x))`.

    It approaches the rectifier :math:`\\max(0, x)` as :math:`\\beta` grows.

    Args:
        x: Input variable of a floating dtype.
        beta: Sharpness parameter :math:`\\beta` (nonzero).

    Returns:
        Output variable of the shape and dtype of ``x``.

    Example:
        >>> F.softplus(np.array([0.], 'f')).array
        array([0.6931472], dtype=float32)
    """
    return Softplus(beta).apply((x,))[0]


__all__ = ["softplus"]
