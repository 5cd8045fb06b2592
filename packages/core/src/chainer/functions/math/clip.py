"""Clipping of values to an interval."""

from __future__ import annotations

import numbers
from typing import Any

import numpy

from chainer import backend, function_node, utils, variable
from chainer.functions.math import _elementwise


class ClipGrad(_elementwise.Masked):
    """The gradient of :func:`clip`: ``gy`` where ``x`` lies in the interval, 0 elsewhere."""


class Clip(function_node.FunctionNode):
    """Limits values to ``[x_min, x_max]`` (``None`` leaves that side open)."""

    def __init__(self, x_min: float | None, x_max: float | None) -> None:
        self.x_min = x_min
        self.x_max = x_max

    @property
    def label(self) -> str:
        return "Clip"  # as Chainer 7.8.1 labels it (graphs, TimerHook reports)

    def check_type_forward(self, in_types: Any) -> None:
        _elementwise.expect_float(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        (x,) = inputs
        xp = backend.get_array_module(x)
        if self.x_min is None:
            y = xp.minimum(x, self.x_max)
        elif self.x_max is None:
            y = xp.maximum(x, self.x_min)
        else:
            # Two ufuncs, the second in place: cheaper than xp.clip's Python wrapper.
            y = utils.force_array(xp.maximum(x, self.x_min))
            xp.minimum(y, self.x_max, out=y)
        return (utils.force_array(y, x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # The gradient passes inside the interval, both ends included. The mask is made
        # here, not in forward, so that inference does not pay for it.
        x = self.get_retained_inputs()[0].array
        if self.x_min is None:
            mask = x <= self.x_max
        elif self.x_max is None:
            mask = x >= self.x_min
        else:
            mask = (x >= self.x_min) & (x <= self.x_max)
        return ClipGrad(mask).apply(grad_outputs)


def _check_bound(value: Any, name: str) -> float | None:
    if value is None:
        return None
    if type(value) is not float:
        if isinstance(value, numpy.ndarray) and value.ndim == 0:
            value = value[()]
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"chainer.functions.clip: {name} must be a real number or None, got {type(value).__name__}")
        value = float(value)
    if value != value:
        raise ValueError(f"chainer.functions.clip: {name} must not be NaN")
    return value


def clip(x: Any, x_min: float | None, x_max: float | None) -> variable.Variable:
    """Elementwise clipping of values to the interval ``[x_min, x_max]``.

    The gradient passes where ``x_min <= x <= x_max`` and is zero outside.

    Args:
        x: Input variable or array of a floating dtype.
        x_min: The lower bound (a real number), or ``None`` for no lower bound.
        x_max: The upper bound (a real number), or ``None`` for no upper bound.

    Returns:
        The clipped variable, with the dtype of ``x``.

    Raises:
        ValueError: Both bounds are ``None``, or ``x_min >= x_max``.

    Example:
        >>> F.clip(np.array([-2., 0.5, 3.], 'f'), -1.0, 1.0).array
        array([-1. ,  0.5,  1. ], dtype=float32)
    """
    x_min = _check_bound(x_min, "x_min")
    x_max = _check_bound(x_max, "x_max")
    if x_min is None and x_max is None:
        raise ValueError("chainer.functions.clip: x_min and x_max cannot both be None")
    if x_min is not None and x_max is not None and x_min >= x_max:
        raise ValueError(f"chainer.functions.clip: x_min must be less than x_max, got x_min={x_min}, x_max={x_max}")
    return Clip(x_min, x_max).apply((x,))[0]


__all__ = ["clip"]
