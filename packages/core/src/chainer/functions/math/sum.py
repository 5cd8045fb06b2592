"""Summation of elements."""

from __future__ import annotations

from typing import Any

from chainer import function_node, utils, variable
from chainer.functions.math import _reduction
from chainer.utils import type_check


class Sum(function_node.FunctionNode):
    """Sum over the given axes."""

    def __init__(self, axis: tuple[int, ...] | None = None, keepdims: bool = False) -> None:
        self.axis = axis
        self.keepdims = keepdims

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type = in_types[0]
        # Integer sums would make average() and friends truncate; 7.8.1 rejects them too.
        type_check.expect(x_type.dtype.kind == "f")
        _reduction.check_axes(x_type, self.axis)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        self._in_shape = x.shape
        return (utils.force_array(x.sum(axis=self.axis, keepdims=self.keepdims)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.array import broadcast, reshape

        gy = grad_outputs[0]
        in_shape = self._in_shape
        if not self.keepdims and self.axis is not None:
            ndim = len(in_shape)
            kept = [1 if (i in {a % ndim for a in self.axis}) else s for i, s in enumerate(in_shape)]
            gy = reshape.reshape(gy, kept)
        return (broadcast.broadcast_to(gy, in_shape),)


def _normalize_axis(axis: Any, where: str) -> tuple[int, ...] | None:
    if axis is None:
        return None
    if isinstance(axis, int) and not isinstance(axis, bool):
        return (axis,)
    if isinstance(axis, (tuple, list)) and all(isinstance(a, int) and not isinstance(a, bool) for a in axis):
        if len(set(axis)) != len(axis):
            raise ValueError(f"{where}: duplicate value in axis {tuple(axis)}")
        return tuple(axis)
    raise TypeError(f"{where}: axis must be None, an int or a tuple of ints, got {axis!r}")


def sum(x: Any, axis: Any = None, keepdims: bool = False) -> variable.Variable:
    """Sum of array elements over the given axes.

    Args:
        x: Input variable.
        axis: ``None`` (all elements), an int, or a tuple of ints.
        keepdims: Keep the summed axes with size one.

    Returns:
        The sum.

    Example:
        >>> F.sum(np.array([[1., 2.], [3., 4.]], 'f'), axis=0).array
        array([4., 6.], dtype=float32)
    """
    return Sum(_normalize_axis(axis, "chainer.functions.sum"), keepdims).apply((x,))[0]


__all__ = ["sum"]
