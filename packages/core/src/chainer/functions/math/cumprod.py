"""Cumulative product along an axis."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.functions.math import _reduction
from chainer.functions.math import cumsum as cumsum_module
from chainer.utils import type_check


class Cumprod(function_node.FunctionNode):
    """Cumulative product along ``axis``."""

    def __init__(self, axis: int) -> None:
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type = in_types[0]
        _reduction.expect_float(x_type)
        _reduction.check_axes(x_type, (self.axis,))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        x = inputs[0]
        xp = backend.get_array_module(x)
        return (utils.force_array(xp.cumprod(x, axis=self.axis), x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # d y_i / d x_j = prod_{k <= i, k != j} x_k for j <= i, so
        # gx_j = sum_{i >= j} gy_i y_i / x_j wherever x_j != 0 (a reverse cumulative sum).
        # At the first zero z of a line the division is replaced by the cumulative product
        # with x_z set to one; later zeros get 0, their exact value (only the mixed second
        # derivative between two zeros of one line is lost).
        (x,) = self.get_retained_inputs()
        (y,) = self.get_retained_outputs()
        gy = grad_outputs[0]
        axis = self.axis % x.ndim
        zero = x.array == 0
        if not zero.any():
            return (_reverse_cumsum(gy * y, axis) / x,)
        dtype = x.dtype
        nonzero = (~zero).astype(dtype)
        first = _reduction.first_true(zero, (axis,)).astype(dtype)
        x_safe = x * nonzero + zero.astype(dtype)
        y_first_replaced = Cumprod(axis).apply((x * (1 - first) + first,))[0]
        gx = _reverse_cumsum(gy * y, axis) / x_safe * nonzero
        return (gx + _reverse_cumsum(gy * y_first_replaced, axis) * first,)


def _reverse_cumsum(x: variable.Variable, axis: int) -> variable.Variable:
    return cumsum_module.Cumsum(axis, reverse=True).apply((x,))[0]


def cumprod(x: Any, axis: Any = None) -> variable.Variable:
    """Cumulative product of array elements along an axis.

    The gradient is exact also where ``x`` has zeros (it is not computed by dividing by
    ``x``).

    Args:
        x: Input variable of a floating dtype.
        axis: The axis; ``None`` flattens ``x`` first.

    Returns:
        The cumulative products, of the shape of ``x`` (1-dimensional if ``axis`` is
        ``None``).

    Example:
        >>> F.cumprod(np.array([[1., 2.], [3., 4.]], 'f'), axis=1).array
        array([[ 1.,  2.],
               [ 3., 12.]], dtype=float32)
    """
    x, axis = cumsum_module._prepare(x, axis, "chainer.functions.cumprod")
    return Cumprod(axis).apply((x,))[0]


__all__ = ["cumprod"]
