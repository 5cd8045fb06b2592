"""Logarithm of the softmax over an axis."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.functions.activation import _elementwise, softmax


def logsumexp(x: Any, axis: Any) -> Any:
    """``log(sum(exp(x), axis, keepdims=True))`` of a raw array, shifted by the maximum so
    that it neither overflows nor underflows."""
    xp = backend.get_array_module(x)
    m = x.max(axis=axis, keepdims=True)
    return m + xp.log(xp.exp(x - m).sum(axis=axis, keepdims=True))


class LogSoftmaxGrad(function_node.FunctionNode):
    """:math:`g_x = g_y - e^{y} \\sum g_y` from ``(y, gy)``, ``y`` the log-softmax
    output, the sum taken along ``axis``."""

    _label = "LogSoftmaxGrad"

    def __init__(self, axis: int) -> None:
        self.axis = axis

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        y, gy = inputs
        xp = backend.get_array_module(y)
        gx = gy - xp.exp(y) * gy.sum(axis=self.axis, keepdims=True)
        return (utils.force_array(gx, gy.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.math import exponential
        from chainer.functions.math import sum as sum_module

        y, gy = self.get_retained_inputs()
        w = grad_outputs[0]
        p = exponential.exp(y)
        result: list[Any] = []
        for index in indexes:
            if index == 0:
                result.append(-w * p * sum_module.sum(gy, axis=self.axis, keepdims=True))
            else:
                result.append(w - sum_module.sum(w * p, axis=self.axis, keepdims=True))
        return tuple(result)


class LogSoftmax(softmax.SoftmaxBase):
    """:math:`y_i = x_i - \\log \\sum_j e^{x_j}` along ``axis``."""

    _grad_class = LogSoftmaxGrad

    def __init__(self, axis: int = 1) -> None:
        self.axis = _elementwise.check_axis(axis, "chainer.functions.log_softmax")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        x = inputs[0]
        return (utils.force_array(x - logsumexp(x, self.axis), x.dtype),)


def log_softmax(x: Any, axis: int = 1) -> variable.Variable:
    """Logarithm of the softmax along ``axis``, computed stably:
    :math:`y_i = x_i - \\log \\sum_j \\exp(x_j)`.

    Prefer it to ``F.log(F.softmax(x))``, which underflows for large negative logits.

    Args:
        x: Input variable of a floating dtype.
        axis: The axis along which the softmax is taken.

    Returns:
        Output variable of the shape and dtype of ``x``.

    Example:
        >>> F.log_softmax(np.array([[0., 0.]], 'f')).array
        array([[-0.6931472, -0.6931472]], dtype=float32)
    """
    return LogSoftmax(axis).apply((x,))[0]


__all__ = ["log_softmax"]
