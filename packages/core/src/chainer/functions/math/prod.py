"""Product of array elements."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, utils, variable
from chainer.functions.math import _reduction


class Prod(_reduction.AxisReduction):
    """Product over the given axes."""

    _where = "chainer.functions.prod"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        x = inputs[0]
        xp = backend.get_array_module(x)
        return (utils.force_array(xp.prod(x, axis=self.axis, keepdims=self.keepdims), x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        (y,) = self.get_retained_outputs()
        shape = x.shape
        kept = _reduction.kept_shape(shape, self.axis)
        gy = _reduction.expand(grad_outputs[0], kept, shape)
        if x.dtype != numpy.float16:
            return (gy * _product_of_others(x, y, self.axis),)
        # In float16 the quotients y / x and their derivatives lose several bits; the
        # gradient graph runs in float32 (from x, not the rounded y) and is rounded once.
        from chainer.functions.array import cast

        x32 = cast.cast(x, numpy.float32)
        y32 = prod(x32, axis=self.axis, keepdims=True)
        gx = cast.cast(gy, numpy.float32) * _product_of_others(x32, y32, self.axis)
        return (cast.cast(gx, numpy.float16),)


def _product_of_others(x: variable.Variable, y: variable.Variable, axis: tuple[int, ...] | None) -> variable.Variable:
    """For each element of ``x``, the product of the other elements of its group: the
    derivative of the product ``y`` with respect to that element, written with
    differentiable functions so that higher derivatives work.

    Without zeros this is ``y / x``. Where a group has zeros, ``y / x`` is still right for
    the non-zero elements (as a value and as a function of every element), and the
    first zero gets the product of its group with itself replaced by one. Later zeros of
    a group get 0, which is their value; only the mixed second derivative between two
    zeros of one group is lost by that.
    """
    shape = x.shape
    kept = _reduction.kept_shape(shape, axis)
    y_full = _reduction.expand(y, kept, shape)
    zero = x.array == 0
    if not zero.any():
        return y_full / x
    dtype = x.dtype
    nonzero = (~zero).astype(dtype)
    first = _reduction.first_true(zero, _reduction.reduced_axes(x.ndim, axis))
    first_f = first.astype(dtype)
    x_safe = x * nonzero + zero.astype(dtype)
    x_first_replaced = x * (1 - first_f) + first_f
    with_first_replaced = _reduction.expand(prod(x_first_replaced, axis=axis, keepdims=True), kept, shape)
    return y_full / x_safe * nonzero + with_first_replaced * first_f


def prod(x: Any, axis: Any = None, keepdims: bool = False) -> variable.Variable:
    """Product of array elements over the given axes.

    The gradient is exact also where ``x`` has zeros (it is not computed as ``y / x``).

    Args:
        x: Input variable of a floating dtype.
        axis: ``None`` (all elements), an int, or a tuple of ints.
        keepdims: Keep the reduced axes with size one.

    Returns:
        The product.

    Example:
        >>> F.prod(np.array([[1., 2.], [3., 4.]], 'f'), axis=1).array
        array([ 2., 12.], dtype=float32)
    """
    return Prod(_reduction.normalize_axis(axis, "chainer.functions.prod"), keepdims).apply((x,))[0]


__all__ = ["prod"]
