"""Choosing elements from two variables by a condition."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, function_node, variable
from chainer.utils import type_check


class Where(function_node.FunctionNode):
    """``condition ? x : y`` elementwise, with broadcasting."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("condition", "x", "y"))
        c_type, x_type, y_type = in_types
        type_check.expect(c_type.dtype == numpy.bool_, x_type.dtype == y_type.dtype)
        type_check.expect_broadcast_shapes(c_type.shape, x_type.shape, y_type.shape)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        condition, x, y = inputs
        self._condition = condition
        self._x_shape = x.shape
        self._y_shape = y.shape
        xp = backend.get_array_module(*inputs)
        return (xp.asarray(xp.where(condition, x, y)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.math import sum as sum_module

        gy = grad_outputs[0]
        xp = backend.get_array_module(gy)
        zero = xp.zeros((), gy.dtype)
        result: list[Any] = []
        for i in indexes:
            if i == 0:
                result.append(None)
            elif i == 1:
                result.append(sum_module.sum_to(where(self._condition, gy, zero), self._x_shape))
            else:
                result.append(sum_module.sum_to(where(self._condition, zero, gy), self._y_shape))
        return tuple(result)


def _as_operand(value: Any, other: Any) -> Any:
    if isinstance(value, variable.Variable) or hasattr(value, "dtype"):
        return value
    if other is None or not (isinstance(other, variable.Variable) or hasattr(other, "dtype")):
        raise TypeError("chainer.functions.where: x and y cannot both be Python scalars")
    xp = backend.get_array_module(other.array if isinstance(other, variable.Variable) else other)
    return xp.asarray(value, dtype=other.dtype)


def where(condition: Any, x: Any, y: Any) -> variable.Variable:
    """Choose elements from ``x`` where ``condition`` holds and from ``y`` elsewhere.

    Args:
        condition: A boolean variable or array.
        x: Variable or array (or a Python scalar, given the dtype of ``y``).
        y: Variable or array of the dtype of ``x`` (or a Python scalar).

    The three shapes broadcast together (NumPy rules); gradients are summed back to the
    shapes of ``x`` and ``y``.

    Returns:
        The variable of the broadcast shape.

    Example:
        >>> c = np.array([True, False])
        >>> F.where(c, np.array([1., 2.], 'f'), np.array([3., 4.], 'f')).array
        array([1., 4.], dtype=float32)
    """
    x_operand = _as_operand(x, y)
    y_operand = _as_operand(y, x_operand)
    if isinstance(condition, variable.Variable):
        condition = condition.array
    return Where().apply((condition, x_operand, y_operand))[0]


__all__ = ["where"]
