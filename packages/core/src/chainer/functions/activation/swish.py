"""Swish activation."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.functions import _composite
from chainer.utils import type_check


def _expand(beta: Any, x_ndim: int) -> tuple[int, ...]:
    return (1,) + tuple(beta.shape) + (1,) * (x_ndim - 1 - beta.ndim)


class Swish(function_node.FunctionNode):
    """:math:`x \\sigma(\\beta x)` with ``beta`` broadcast from axis 1."""

    @property
    def label(self) -> str:
        return "Swish"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "beta"))
        x_type, beta_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            beta_type.dtype == x_type.dtype,
            x_type.ndim >= beta_type.ndim + 1,
        )
        for i in range(type_check.eval(beta_type.ndim)):
            type_check.expect(x_type.shape[i + 1] == beta_type.shape[i])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, beta = inputs
        xp = backend.get_array_module(x)
        half = x.dtype.type(0.5)
        s = xp.tanh(x * beta.reshape(_expand(beta, x.ndim)) * half) * half + half
        return (utils.force_array(x * s, x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, beta = self.get_retained_inputs()
        return _grads(x, beta, grad_outputs[0], indexes)


def _grads(x: Any, beta: Any, gy: Any, indexes: tuple[int, ...]) -> tuple[Any, ...]:
    """The gradients of swish with respect to ``x`` (0) and ``beta`` (1) that ``indexes``
    asks for, written with differentiable functions."""
    from chainer.functions.activation import sigmoid
    from chainer.functions.array import broadcast, reshape
    from chainer.functions.math import sum as sum_module

    b = broadcast.broadcast_to(reshape.reshape(beta, _expand(beta, x.ndim)), x.shape)
    s = sigmoid.sigmoid(b * x)
    ds = s * (1 - s)  # sigma'(beta x)
    result: list[Any] = []
    for index in indexes:
        if index == 0:
            result.append(gy * (s + b * x * ds))
        else:
            axes = (0,) + tuple(range(1 + beta.ndim, x.ndim))
            result.append(sum_module.sum(gy * x * x * ds, axis=axes))
    return tuple(result)


class SwishGrad(_composite.CompositeNode):
    """The gradients ``(gx, gbeta)`` of swish from ``(x, beta, gy)``; differentiable again."""

    def composite(self, x: Any, beta: Any, gy: Any) -> tuple[Any, ...]:
        return _grads(x, beta, gy, (0, 1))


def swish(x: Any, beta: Any) -> variable.Variable:
    """Swish activation, :math:`x \\sigma(\\beta x)`.

    ``beta`` is a learnable parameter broadcast along the axes of ``x`` from axis 1:
    its shape must equal ``x.shape[1:1 + beta.ndim]``. See Ramachandran et al.,
    *Searching for Activation Functions* (2017).

    Args:
        x: Input variable of a floating dtype.
        beta: Parameter variable of the dtype of ``x``.

    Returns:
        Output variable of the shape and dtype of ``x``.

    Example:
        >>> x = np.array([[0., 2.]], 'f'); beta = np.ones(2, 'f')
        >>> F.swish(x, beta).array
        array([[0.       , 1.7615942]], dtype=float32)
    """
    return Swish().apply((x, beta))[0]


__all__ = ["swish"]
