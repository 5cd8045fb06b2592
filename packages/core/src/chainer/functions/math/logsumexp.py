"""Log-sum-exp reduction."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, function_node, utils, variable
from chainer.functions.math import _reduction
from chainer.utils import type_check


class LogSumExp(function_node.FunctionNode):
    """``log(sum(exp(x)))`` over the given axes, computed without overflow."""

    def __init__(self, axis: tuple[int, ...] | None = None) -> None:
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type = in_types[0]
        _reduction.expect_float(x_type)
        _reduction.check_axes(x_type, self.axis, where="chainer.functions.logsumexp")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        x = inputs[0]
        xp = backend.get_array_module(x)
        m = x.max(axis=self.axis, keepdims=True)
        # A group that is all -inf (or holds +inf) has no finite shift; shift it by 0, which
        # gives -inf (or +inf) as the exact answer instead of nan.
        m = xp.where(xp.isfinite(m), m, 0)
        s = xp.exp(x - m).sum(axis=self.axis, keepdims=True)
        with numpy.errstate(divide="ignore"):  # log(0) = -inf is the right answer here
            y = xp.log(s) + m
        y = y.reshape(_reduced_shape(x.shape, self.axis))
        return (utils.force_array(y, x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.math import exponential

        (x,) = self.get_retained_inputs()
        (y,) = self.get_retained_outputs()
        kept = _reduction.kept_shape(x.shape, self.axis)
        # The softmax of x over the axes, exp(x - y), is the derivative of y.
        softmax = exponential.exp(x - _reduction.expand(y, kept, x.shape))
        return (_reduction.expand(grad_outputs[0], kept, x.shape) * softmax,)


def _reduced_shape(shape: tuple[int, ...], axis: tuple[int, ...] | None) -> tuple[int, ...]:
    reduced = _reduction.reduced_axes(len(shape), axis)
    return tuple(s for i, s in enumerate(shape) if i not in reduced)


def logsumexp(x: Any, axis: Any = None) -> variable.Variable:
    """Log-sum-exp of array elements over the given axes.

    Computes :math:`\\log \\sum_i \\exp(x_i)` as :math:`m + \\log \\sum_i \\exp(x_i - m)`
    with :math:`m = \\max_i x_i`, so that large or very negative inputs neither overflow
    nor underflow. Its gradient is the softmax of ``x`` over the axes.

    Args:
        x: Input variable of a floating dtype.
        axis: ``None`` (all elements), an int, or a tuple of ints.

    Returns:
        The log-sum-exp, with the reduced axes removed.

    Example:
        >>> F.logsumexp(np.array([1000., 1000.], 'f')).array
        array(1000.6932, dtype=float32)
    """
    return LogSumExp(_reduction.normalize_axis(axis, "chainer.functions.logsumexp")).apply((x,))[0]


__all__ = ["logsumexp"]
