"""Removing axes of length one."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, variable
from chainer.functions.array import _util
from chainer.utils import type_check


def argone(iterable: Any) -> tuple[int, ...]:
    """The positions of the ones in ``iterable``: the axes of length one of a shape.

    Example:
        >>> from chainer.functions.array import squeeze
        >>> squeeze.argone((1, 3, 1, 2))
        (0, 2)
    """
    return tuple(i for i, n in enumerate(iterable) if n == 1)


class Squeeze(function_node.FunctionNode):
    """Remove the given axes (all axes of length one if ``axis`` is ``None``)."""

    def __init__(self, axis: tuple[int, ...] | None) -> None:
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type = in_types[0]
        if self.axis is None:
            return
        for axis in self.axis:
            _util.expect_axis(x_type, axis)
        # Axes that cannot be squeezed are ValueErrors, as in numpy.squeeze and Chainer 7.
        ndim = type_check.eval(x_type.ndim)
        if len({a % ndim for a in self.axis}) != len(self.axis):
            raise ValueError(f"chainer.functions.squeeze: duplicate value in axis {self.axis}")
        shape = type_check.eval(x_type.shape)
        for axis in self.axis:
            if shape[axis] != 1:
                raise ValueError(
                    f"chainer.functions.squeeze: axis {axis} has size {shape[axis]}; only axes of size one can be "
                    "squeezed out"
                )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        self._in_shape = x.shape
        return (backend.get_array_module(x).squeeze(x, self.axis),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.array import reshape

        return (reshape.reshape(grad_outputs[0], self._in_shape),)


def squeeze(x: Any, axis: Any = None) -> variable.Variable:
    """Remove axes of length one (a view, no copy).

    Args:
        x: Input variable.
        axis: An int or a tuple of ints: the axes to remove, each of length one. ``None``
            removes every axis of length one.

    Returns:
        The squeezed variable.

    Example:
        >>> F.squeeze(np.zeros((1, 2, 1), 'f')).shape
        (2,)
        >>> F.squeeze(np.zeros((1, 2, 1), 'f'), axis=2).shape
        (1, 2)
    """
    if axis is not None:
        axis = _util.as_int_tuple(axis, "chainer.functions.squeeze", "axis")
    return Squeeze(axis).apply((x,))[0]


__all__ = ["squeeze"]
