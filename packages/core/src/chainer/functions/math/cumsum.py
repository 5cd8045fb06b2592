"""Cumulative sum along an axis."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.functions.math import _reduction
from chainer.utils import type_check


class Cumsum(function_node.FunctionNode):
    """Cumulative sum along ``axis``; from the end towards the start if ``reverse``.

    The two directions are each other's adjoint, so the backward of one is the other.
    """

    def __init__(self, axis: int, reverse: bool = False) -> None:
        self.axis = axis
        self.reverse = reverse

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type = in_types[0]
        _reduction.expect_float(x_type)
        _reduction.check_axes(x_type, (self.axis,))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        xp = backend.get_array_module(x)
        if not self.reverse:
            return (utils.force_array(xp.cumsum(x, axis=self.axis), x.dtype),)
        flip = _flip_index(x.ndim, self.axis)
        return (utils.force_array(xp.cumsum(x[flip], axis=self.axis)[flip], x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return Cumsum(self.axis, not self.reverse).apply(grad_outputs)


def _flip_index(ndim: int, axis: int) -> tuple[slice, ...]:
    index = [slice(None)] * ndim
    index[axis] = slice(None, None, -1)
    return tuple(index)


def _prepare(x: Any, axis: Any, where: str) -> tuple[Any, int]:
    """Validate ``axis``; flatten ``x`` when ``axis`` is ``None`` (as NumPy does)."""
    from chainer.functions.array import reshape

    axes = _reduction.normalize_axis(axis, where, allow_tuple=False)
    if axes is None:
        return reshape.reshape(x, (-1,)), 0
    return x, axes[0]


def cumsum(x: Any, axis: Any = None) -> variable.Variable:
    """Cumulative sum of array elements along an axis.

    Args:
        x: Input variable of a floating dtype.
        axis: The axis; ``None`` flattens ``x`` first.

    Returns:
        The cumulative sums, of the shape of ``x`` (1-dimensional if ``axis`` is ``None``).

    Example:
        >>> F.cumsum(np.array([[1., 2.], [3., 4.]], 'f'), axis=1).array
        array([[1., 3.],
               [3., 7.]], dtype=float32)
    """
    x, axis = _prepare(x, axis, "chainer.functions.cumsum")
    return Cumsum(axis).apply((x,))[0]


__all__ = ["cumsum"]
