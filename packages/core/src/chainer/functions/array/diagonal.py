"""Taking a diagonal of a variable."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, variable
from chainer.functions.array import _util
from chainer.utils import type_check


class Diagonal(function_node.FunctionNode):
    """:func:`numpy.diagonal`; the gradient is written back on the diagonal of zeros."""

    def __init__(self, offset: int, axis1: int, axis2: int) -> None:
        self.offset = offset
        self.axis1 = axis1
        self.axis2 = axis2

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type = in_types[0]
        type_check.expect(x_type.ndim >= 2)
        _util.expect_axis(x_type, self.axis1, "axis1")
        _util.expect_axis(x_type, self.axis2, "axis2")
        ndim = type_check.eval(x_type.ndim)
        if self.axis1 % ndim == self.axis2 % ndim:
            raise type_check.InvalidType("axis1 and axis2 are different axes", f"both are axis {self.axis1 % ndim}")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        self._in_shape = x.shape
        return (x.diagonal(self.offset, self.axis1, self.axis2),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return DiagonalGrad(self._in_shape, self.offset, self.axis1, self.axis2).apply(grad_outputs)


class DiagonalGrad(function_node.FunctionNode):
    """Zeros of the input shape with the gradient on the diagonal; its gradient is
    :func:`diagonal` again."""

    def __init__(self, shape: tuple[int, ...], offset: int, axis1: int, axis2: int) -> None:
        self._shape = shape
        self.offset = offset
        self.axis1 = axis1
        self.axis2 = axis2

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy = inputs[0]
        xp = backend.get_array_module(gy)
        gx = xp.zeros(self._shape, gy.dtype)
        # NumPy's diagonal is read-only; write through a (writable) view with the two
        # axes last instead.
        view = xp.moveaxis(gx, (self.axis1, self.axis2), (-2, -1))
        n = gy.shape[-1]
        rows = xp.arange(n) + max(-self.offset, 0)
        cols = xp.arange(n) + max(self.offset, 0)
        view[..., rows, cols] = gy
        return (gx,)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (diagonal(grad_outputs[0], self.offset, self.axis1, self.axis2),)


def diagonal(x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> variable.Variable:
    """Take a diagonal, as :func:`numpy.diagonal`.

    Args:
        x: Input variable of at least two dimensions.
        offset: Offset of the diagonal from the main one (positive: above it).
        axis1: First axis of the 2-D sub-arrays.
        axis2: Second axis of the 2-D sub-arrays.

    Returns:
        The diagonal elements; ``axis1`` and ``axis2`` are removed and the diagonal is
        the last axis.

    Example:
        >>> F.diagonal(np.arange(9, dtype='f').reshape(3, 3)).array
        array([0., 4., 8.], dtype=float32)
    """
    where = "chainer.functions.diagonal"
    return Diagonal(
        _util.as_int(offset, where, "offset"), _util.as_int(axis1, where, "axis1"), _util.as_int(axis2, where, "axis2")
    ).apply((x,))[0]


__all__ = ["diagonal"]
