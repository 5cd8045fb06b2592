"""Averages of array elements."""

from __future__ import annotations

from typing import Any

from chainer import utils, variable
from chainer.functions.math import _reduction
from chainer.functions.math import sum as sum_module


class Mean(_reduction.AxisReduction):
    """Unweighted mean over the given axes (all axes for ``None``)."""

    _where = "chainer.functions.average"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        self._in_shape = x.shape
        count = _count(x.shape, self.axis)
        if count == 0:
            raise ValueError("chainer.functions.average: the average of an empty selection is undefined")
        self._scale = 1.0 / count
        return (utils.force_array(x.mean(axis=self.axis, keepdims=self.keepdims), x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.array import broadcast, reshape

        gy = grad_outputs[0] * self._scale
        if not self.keepdims:
            gy = reshape.reshape(gy, _reduction.kept_shape(self._in_shape, self.axis))
        return (broadcast.broadcast_to(gy, self._in_shape),)


def average(x: Any, axis: Any = None, weights: Any = None, keepdims: bool = False) -> variable.Variable:
    """(Weighted) average of array elements over the given axes.

    Args:
        x: Input variable.
        axis: ``None`` (all elements), an int, or a tuple of ints.
        weights: Optional weights: the same shape as ``x``, or 1-dimensional along a
            single ``axis``.
        keepdims: Keep the averaged axes with size one.

    Returns:
        The average.
    """
    from chainer.functions.array import broadcast, reshape

    x = variable.as_variable(x)
    axes = _reduction.normalize_axis(axis, "chainer.functions.average")
    if weights is None:
        return Mean(axes, keepdims).apply((x,))[0]
    weights = variable.as_variable(weights)
    if weights.shape != x.shape:
        if axes is None or len(axes) != 1 or weights.ndim != 1:
            raise ValueError(
                "chainer.functions.average: weights must have the shape of x, or be 1-dimensional "
                f"with a single axis; got weights {weights.shape} for x {x.shape} and axis {axis}"
            )
        if not -x.ndim <= axes[0] < x.ndim:
            raise ValueError(f"chainer.functions.average: axis {axes[0]} is out of range for x of shape {x.shape}")
        ax = axes[0] % x.ndim
        if weights.shape[0] != x.shape[ax]:
            raise ValueError(
                f"chainer.functions.average: weights has length {weights.shape[0]} but x has {x.shape[ax]} along axis {axis}"
            )
        shape = [1] * x.ndim
        shape[ax] = weights.shape[0]
        weights = reshape.reshape(weights, tuple(shape))
        total_weight = sum_module.sum(weights)
        weights = broadcast.broadcast_to(weights, x.shape)
    else:
        total_weight = sum_module.sum(weights, axis=axes, keepdims=keepdims)
    weighted = sum_module.sum(x * weights, axis=axes, keepdims=keepdims)
    if total_weight.shape != weighted.shape:
        total_weight = broadcast.broadcast_to(total_weight, weighted.shape)
    return weighted / total_weight


def _count(shape: tuple[int, ...], axes: tuple[int, ...] | None) -> int:
    n = 1
    for a in _reduction.reduced_axes(len(shape), axes):
        n *= shape[a]
    return n


def mean(x: Any, axis: Any = None, weights: Any = None, keepdims: bool = False) -> variable.Variable:
    """Average of array elements over the given axes (same as :func:`average`)."""
    return average(x, axis=axis, weights=weights, keepdims=keepdims)


__all__ = ["average", "mean"]
