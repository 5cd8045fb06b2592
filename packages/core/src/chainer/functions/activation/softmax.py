"""Softmax over an axis."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.functions.activation import _elementwise
from chainer.utils import type_check


class SoftmaxBase(function_node.FunctionNode):
    """The base of :class:`Softmax` and
    :class:`~chainer.functions.activation.log_softmax.LogSoftmax`: maps of a
    floating-point ``x`` along ``axis`` whose gradient is a ``_grad_class(axis)`` node
    applied to the retained output and the output's gradient.
    """

    axis: int
    _grad_class: Callable[[int], function_node.FunctionNode]

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type = in_types[0]
        type_check.expect(x_type.dtype.kind == "f")
        _elementwise.expect_axis_in_range(x_type, self.axis)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (y,) = self.get_retained_outputs()
        return self._grad_class(self.axis).apply((y, grad_outputs[0]))


class _SoftmaxGrad(function_node.FunctionNode):
    """:math:`g_x = y \\odot (g_y - \\langle y, g_y \\rangle)`, the sum taken along ``axis``."""

    _label = "SoftmaxGrad"

    def __init__(self, axis: int) -> None:
        self.axis = axis

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        y, gy = inputs
        gx = y * gy
        gx -= y * gx.sum(axis=self.axis, keepdims=True)
        return (utils.force_array(gx, gy.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.math import sum as sum_module

        y, gy = self.get_retained_inputs()
        w = grad_outputs[0]
        result: list[Any] = []
        for index in indexes:
            if index == 0:
                s = sum_module.sum(y * gy, axis=self.axis, keepdims=True)
                wy = sum_module.sum(w * y, axis=self.axis, keepdims=True)
                result.append(w * (gy - s) - gy * wy)
            else:
                # The map gy -> gx is symmetric: its adjoint is itself.
                result.append(_SoftmaxGrad(self.axis).apply((y, w))[0])
        return tuple(result)


class Softmax(SoftmaxBase):
    """:math:`y_i = e^{x_i} / \\sum_j e^{x_j}` along ``axis``."""

    _grad_class = _SoftmaxGrad

    def __init__(self, axis: int = 1) -> None:
        self.axis = _elementwise.check_axis(axis, "chainer.functions.softmax")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        x = inputs[0]
        xp = backend.get_array_module(x)
        # Shifting by the maximum keeps exp() finite; the result is unchanged.
        y = xp.exp(x - x.max(axis=self.axis, keepdims=True))
        y /= y.sum(axis=self.axis, keepdims=True)
        return (utils.force_array(y, x.dtype),)


def softmax(x: Any, axis: int = 1) -> variable.Variable:
    """Softmax along ``axis``: :math:`y_i = \\exp(x_i) / \\sum_j \\exp(x_j)`.

    Args:
        x: Input variable of a floating dtype.
        axis: The axis along which the outputs sum to one.

    Returns:
        Output variable of the shape and dtype of ``x``.

    Example:
        >>> F.softmax(np.array([[0., 0.]], 'f')).array
        array([[0.5, 0.5]], dtype=float32)
    """
    return Softmax(axis).apply((x,))[0]


__all__ = ["softmax"]
