"""Parametric rectified linear unit."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.functions import _composite
from chainer.utils import type_check


def _expand(w: Any, x_ndim: int) -> tuple[int, ...]:
    """Shape that aligns ``w`` with axes ``1 .. w.ndim`` of an ``x_ndim``-dimensional array."""
    return (1,) + tuple(w.shape) + (1,) * (x_ndim - 1 - w.ndim)


class PReLUFunction(function_node.FunctionNode):
    """:math:`x` for :math:`x \\ge 0`, :math:`W x` otherwise, ``W`` broadcast from axis 1."""

    @property
    def label(self) -> str:
        return "PReLU"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "W"))
        x_type, w_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            w_type.dtype == x_type.dtype,
            x_type.ndim >= w_type.ndim + 1,
        )
        for i in range(type_check.eval(w_type.ndim)):
            type_check.expect(x_type.shape[i + 1] == w_type.shape[i])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, W = inputs
        xp = backend.get_array_module(x)
        return (utils.force_array(xp.where(x >= 0, x, x * W.reshape(_expand(W, x.ndim))), x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, W = self.get_retained_inputs()
        return _grads(x, W, grad_outputs[0], indexes)


def _grads(x: Any, W: Any, gy: Any, indexes: tuple[int, ...]) -> tuple[Any, ...]:
    """The gradients of the PReLU with respect to ``x`` (0) and ``W`` (1) that
    ``indexes`` asks for, written with differentiable functions."""
    from chainer.functions.array import reshape
    from chainer.functions.math import sum as sum_module

    negative = (variable.as_array(x) < 0).astype(x.dtype)
    result: list[Any] = []
    for index in indexes:
        if index == 0:
            # The slope is 1 where x >= 0 and W where x < 0.
            w = reshape.reshape(W, _expand(W, x.ndim))
            result.append(gy * ((1 - negative) + w * negative))
        else:
            axes = (0,) + tuple(range(1 + W.ndim, x.ndim))
            result.append(sum_module.sum(gy * x * negative, axis=axes))
    return tuple(result)


class PReLUFunctionGrad(_composite.CompositeNode):
    """The gradients ``(gx, gW)`` of the PReLU from ``(x, W, gy)``; differentiable again."""

    def composite(self, x: Any, W: Any, gy: Any) -> tuple[Any, ...]:
        return _grads(x, W, gy, (0, 1))


def prelu(x: Any, W: Any) -> variable.Variable:
    """Parametric ReLU: :math:`x` where :math:`x \\ge 0`, :math:`W x` elsewhere.

    ``W`` is a learnable slope broadcast along the axes of ``x`` from axis 1: its shape
    must equal ``x.shape[1:1 + W.ndim]`` (a scalar slope is ``W`` of shape ``()``).
    See He et al., *Delving Deep into Rectifiers* (2015).

    Args:
        x: Input variable of a floating dtype and at least ``W.ndim + 1`` dimensions.
        W: Slope variable of the dtype of ``x``.

    Returns:
        Output variable of the shape and dtype of ``x``.

    Example:
        >>> x = np.array([[-1., 2.], [-3., -4.]], 'f'); W = np.array([0.5, 0.1], 'f')
        >>> F.prelu(x, W).array
        array([[-0.5,  2. ],
               [-1.5, -0.4]], dtype=float32)
    """
    return PReLUFunction().apply((x, W))[0]


__all__ = ["prelu"]
