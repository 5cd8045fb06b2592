"""Inserting an axis of length one."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, variable
from chainer.functions.array import _util
from chainer.utils import type_check


class ExpandDims(function_node.FunctionNode):
    """Insert a new axis of length one at ``axis``; the gradient is reshaped back."""

    def __init__(self, axis: int) -> None:
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        _util.expect_axis(in_types[0], self.axis, new_axis=True)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        self._in_shape = x.shape
        return (backend.get_array_module(x).expand_dims(x, self.axis),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.array import reshape

        return (reshape.reshape(grad_outputs[0], self._in_shape),)


def expand_dims(x: Any, axis: int) -> variable.Variable:
    """Insert an axis of length one (a view, no copy).

    Args:
        x: Input variable.
        axis: Position of the new axis in the result, ``-x.ndim - 1 <= axis <= x.ndim``.

    Returns:
        A variable with one more dimension.

    Example:
        >>> F.expand_dims(np.zeros((2, 3), 'f'), 1).shape
        (2, 1, 3)
    """
    axis = _util.as_int(axis, "chainer.functions.expand_dims", "axis")
    return ExpandDims(axis).apply((x,))[0]


__all__ = ["expand_dims"]
