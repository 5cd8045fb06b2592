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


class Cumprodsum(function_node.FunctionNode):
    """The linear recurrence ``z[0] = xadd[0]``, ``z[i] = xmul[i] * z[i - 1] + xadd[i]``
    along ``axis`` of two arrays of one shape (inputs ``xmul`` and ``xadd``).

    Cumulative sums (``xmul = 1``) and products (``xadd = 0`` but for the first) are
    special cases; run backwards it accumulates the gradient of a cumulative product
    without dividing by its elements.
    """

    def __init__(self, axis: int) -> None:
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("xmul", "xadd"))
        xmul_type, xadd_type = in_types
        _reduction.expect_float(xmul_type)
        type_check.expect(xadd_type.dtype == xmul_type.dtype, xadd_type.shape == xmul_type.shape)
        _reduction.check_axes(xmul_type, (self.axis,))

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        xmul, xadd = inputs
        xp = backend.get_array_module(xmul)
        z = xp.array(xp.moveaxis(xadd, self.axis, 0))
        mul = xp.moveaxis(xmul, self.axis, 0)
        # One step per position along the axis, each over all the other axes at once.
        for i in range(1, len(z)):
            z[i] += mul[i] * z[i - 1]
        return (xp.ascontiguousarray(xp.moveaxis(z, 0, self.axis)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # dz[j]/dxadd[i] = prod(xmul[i+1..j]) for j >= i, so gxadd is the same recurrence
        # run backwards with the multipliers shifted by one; gxmul[i] = gxadd[i] z[i-1].
        from chainer.functions.array import concat, get_item

        (xmul,) = self.get_retained_inputs()
        (z,) = self.get_retained_outputs()
        axis = self.axis % xmul.ndim
        lead = (slice(None),) * axis
        xp = backend.get_array_module(xmul)
        edge_shape = xmul.shape[:axis] + (1,) + xmul.shape[axis + 1 :]
        ones = variable.Variable(xp.ones(edge_shape, xmul.dtype), requires_grad=False)
        zeros = variable.Variable(xp.zeros(edge_shape, xmul.dtype), requires_grad=False)
        next_mul = concat.concat((get_item.get_item(xmul, lead + (slice(1, None),)), ones), axis)
        g_add = _flipcumprodsum(next_mul, grad_outputs[0], axis)
        result = []
        for i in indexes:
            if i == 0:
                z_before = concat.concat((zeros, get_item.get_item(z, lead + (slice(None, -1),))), axis)
                result.append(g_add * z_before)
            else:
                result.append(g_add)
        return tuple(result)


def _flipcumprodsum(xmul: Any, xadd: Any, axis: int) -> variable.Variable:
    """:class:`Cumprodsum` run from the end of ``axis``: ``z[n-1] = xadd[n-1]``,
    ``z[i] = xmul[i] * z[i + 1] + xadd[i]``."""
    from chainer.functions.array import flip

    z = Cumprodsum(axis).apply((flip.flip(xmul, axis), flip.flip(xadd, axis)))[0]
    return flip.flip(z, axis)


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
