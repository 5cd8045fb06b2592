"""Separating a variable into the slices along an axis."""

from __future__ import annotations

from typing import Any

from chainer import function_node
from chainer.functions.array import _util
from chainer.utils import type_check


class Separate(function_node.FunctionNode):
    """One output per index along ``axis``, with that axis removed; the gradient is
    :func:`stack`."""

    def __init__(self, axis: int) -> None:
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type = in_types[0]
        type_check.expect(x_type.ndim >= 1)
        _util.expect_axis(x_type, self.axis)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        axis = self.axis % x.ndim
        self._dtype = x.dtype
        self._shape = x.shape[:axis] + x.shape[axis + 1 :]
        # The trailing Ellipsis keeps 0-dimensional pieces as array views, not scalars.
        lead = (slice(None),) * axis
        return tuple(x[lead + (i, Ellipsis)] for i in range(x.shape[axis]))

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.array import stack

        xp = _util.array_module_of(grad_outputs)
        gys = _util.zeros_for_none(grad_outputs, [self._shape] * len(grad_outputs), self._dtype, xp)
        return (stack.stack(gys, self.axis),)


def separate(x: Any, axis: int = 0) -> tuple[Any, ...]:
    """Separate an array into its slices along an axis (the inverse of :func:`stack`).

    Args:
        x: Input variable of at least one dimension.
        axis: The axis to separate along.

    Returns:
        A tuple of ``x.shape[axis]`` variables, each of shape ``x.shape`` without ``axis``.

    Example:
        >>> a, b = F.separate(np.array([[1, 2], [3, 4]], 'f'), axis=1)
        >>> a.array, b.array
        (array([1., 3.], dtype=float32), array([2., 4.], dtype=float32))
    """
    axis = _util.as_int(axis, "chainer.functions.separate", "axis")
    return Separate(axis).apply((x,))


__all__ = ["separate"]
