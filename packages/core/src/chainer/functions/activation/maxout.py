"""Maxout activation."""

from __future__ import annotations

import numbers
from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.functions.activation import _elementwise
from chainer.utils import type_check


def _pooled_shape(shape: tuple[int, ...], axis: int, pool_size: int) -> tuple[int, ...]:
    return shape[:axis] + (shape[axis] // pool_size, pool_size) + shape[axis + 1 :]


class Maxout(function_node.FunctionNode):
    """Maximum over consecutive groups of ``pool_size`` entries along ``axis``."""

    def __init__(self, pool_size: int, axis: int) -> None:
        self.pool_size = pool_size
        self.axis = axis

    @property
    def label(self) -> str:
        return "Maxout"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type = in_types[0]
        type_check.expect(x_type.dtype.kind == "f")
        _elementwise.expect_axis_in_range(x_type, self.axis)
        axis = self.axis % type_check.eval(x_type.ndim)
        type_check.expect(x_type.shape[axis] % type_check.make_variable(self.pool_size, "pool_size") == 0)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        xp = backend.get_array_module(x)
        axis = self.axis % x.ndim
        self._axis = axis
        self._in_shape = x.shape
        grouped = x.reshape(_pooled_shape(x.shape, axis, self.pool_size))
        # Index of the maximum in each group; the gradient flows to that element only.
        self._argmax = xp.expand_dims(grouped.argmax(axis=axis + 1), axis + 1)
        return (utils.force_array(xp.take_along_axis(grouped, self._argmax, axis + 1).squeeze(axis + 1)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return _MaxoutGrad(self._argmax, self._axis, self.pool_size, self._in_shape).apply(grad_outputs)


class _MaxoutGrad(function_node.FunctionNode):
    """Scatter ``gy`` to the selected element of each group (zeros elsewhere)."""

    def __init__(self, argmax: Any, axis: int, pool_size: int, in_shape: tuple[int, ...]) -> None:
        self._argmax = argmax
        self._axis = axis
        self._pool_size = pool_size
        self._in_shape = in_shape

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy = inputs[0]
        xp = backend.get_array_module(gy)
        axis = self._axis
        positions = xp.arange(self._pool_size).reshape((self._pool_size,) + (1,) * (gy.ndim - axis - 1))
        selected = positions == self._argmax
        gx = xp.where(selected, xp.expand_dims(gy, axis + 1), gy.dtype.type(0))
        return (utils.force_array(gx.reshape(self._in_shape), gy.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return _MaxoutSelect(self._argmax, self._axis, self._pool_size).apply(grad_outputs)


class _MaxoutSelect(function_node.FunctionNode):
    """Pick the elements at fixed positions ``argmax`` (the adjoint of :class:`_MaxoutGrad`)."""

    def __init__(self, argmax: Any, axis: int, pool_size: int) -> None:
        self._argmax = argmax
        self._axis = axis
        self._pool_size = pool_size

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        xp = backend.get_array_module(x)
        self._in_shape = x.shape
        grouped = x.reshape(_pooled_shape(x.shape, self._axis, self._pool_size))
        return (utils.force_array(xp.take_along_axis(grouped, self._argmax, self._axis + 1).squeeze(self._axis + 1)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return _MaxoutGrad(self._argmax, self._axis, self._pool_size, self._in_shape).apply(grad_outputs)


def maxout(x: Any, pool_size: int, axis: int = 1) -> variable.Variable:
    """Maxout: the maximum over groups of ``pool_size`` consecutive entries along ``axis``.

    The entries ``k * pool_size, ..., (k + 1) * pool_size - 1`` of ``axis`` form group
    ``k``; the output has ``x.shape[axis] // pool_size`` entries along ``axis``. See
    Goodfellow et al., *Maxout Networks* (2013).

    Args:
        x: Input variable of a floating dtype.
        pool_size: Group size, a positive integer dividing ``x.shape[axis]``.
        axis: Axis along which groups are formed.

    Returns:
        Output variable.

    Example:
        >>> F.maxout(np.array([[1., 3., 2., 0.]], 'f'), 2).array
        array([[3., 2.]], dtype=float32)
    """
    if not isinstance(pool_size, numbers.Integral) or isinstance(pool_size, bool) or pool_size <= 0:
        raise ValueError(f"chainer.functions.maxout: pool_size must be a positive integer, got {pool_size!r}")
    _elementwise.check_axis(axis, "chainer.functions.maxout")
    return Maxout(int(pool_size), axis).apply((x,))[0]


__all__ = ["maxout"]
