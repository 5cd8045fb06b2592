"""Huber loss."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, function_node, utils, variable
from chainer.functions.loss import _common
from chainer.utils import type_check

_WHERE = "huber_loss"


class HuberLoss(function_node.FunctionNode):
    """:math:`\\frac12 d^2` for :math:`|d| \\le \\delta`, else :math:`\\delta (|d| - \\frac12 \\delta)`,
    with :math:`d = x - t`."""

    def __init__(self, delta: float, reduce: str) -> None:
        self.delta = delta
        self.reduce = reduce

    @property
    def label(self) -> str:
        return "HuberLoss"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "t"))
        x_type, t_type = in_types
        type_check.expect(x_type.dtype.kind == "f", x_type.dtype == t_type.dtype, x_type.shape == t_type.shape)
        if self.reduce == "sum_along_second_axis":
            type_check.expect(x_type.ndim >= 2)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, t = inputs
        xp = backend.get_array_module(x)
        diff = x - t
        abs_diff = abs(diff)
        delta = x.dtype.type(self.delta)
        half = x.dtype.type(0.5)
        loss = xp.where(abs_diff <= delta, half * diff * diff, delta * (abs_diff - half * delta))
        if self.reduce == "sum_along_second_axis":
            acc = numpy.float32 if x.dtype == numpy.float16 else x.dtype
            loss = loss.sum(axis=1, dtype=acc)
        return (utils.force_array(loss, x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.array import broadcast, reshape

        x, t = self.get_retained_inputs()
        xp = backend.get_array_module(x.array)
        diff_array = x.array - t.array
        inside = abs(diff_array) <= self.delta
        # clip(d, -delta, delta) as a differentiable expression in d: d inside the band,
        # the constant ±delta outside it.
        outside_value = xp.where(inside, 0, xp.sign(diff_array) * self.delta).astype(x.dtype)
        clipped = (x - t) * inside.astype(x.dtype) + outside_value
        gy = grad_outputs[0]
        if self.reduce == "sum_along_second_axis":
            gy = reshape.reshape(gy, gy.shape[:1] + (1,) + gy.shape[1:])
            gy = broadcast.broadcast_to(gy, x.shape)
        gx = gy * clipped
        return tuple(gx if i == 0 else -gx for i in indexes)


def huber_loss(x: Any, t: Any, delta: float, reduce: str = "sum_along_second_axis") -> variable.Variable:
    """Huber loss: quadratic near zero, linear beyond ``delta``.

    For :math:`d = x - t` the loss of an element is :math:`\\frac12 d^2` if
    :math:`|d| \\le \\delta` and :math:`\\delta (|d| - \\frac12 \\delta)` otherwise. Its
    gradient is :math:`\\mathrm{clip}(d, -\\delta, \\delta)`.

    Args:
        x: Predictions, floating dtype.
        t: Targets of the shape and dtype of ``x``.
        delta: Positive threshold between the quadratic and the linear part.
        reduce: ``'sum_along_second_axis'`` (sum over axis 1; ``x`` needs at least two
            axes) or ``'no'`` (the loss of every element).

    Returns:
        The loss variable.

    Example:
        >>> x = np.array([[0.5, 3.]], 'f'); t = np.zeros((1, 2), 'f')
        >>> F.huber_loss(x, t, delta=1.).array  # 0.125 + 2.5
        array([2.625], dtype=float32)
    """
    _common.check_reduce(reduce, ("sum_along_second_axis", "no"), _WHERE)
    if not isinstance(delta, (int, float, numpy.number)) or isinstance(delta, bool) or not delta > 0:
        raise ValueError(f"chainer.functions.{_WHERE}: delta must be a positive number, got {delta!r}")
    return HuberLoss(float(delta), reduce).apply((x, t))[0]


__all__ = ["huber_loss"]
