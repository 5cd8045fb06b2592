"""Rearranging channels into spatial blocks (sub-pixel convolution)."""

from __future__ import annotations

from typing import Any

from chainer import function_node, variable
from chainer.functions.array import _util
from chainer.utils import type_check


class Depth2Space(function_node.FunctionNode):
    """``(B, r*r*C, H, W) -> (B, C, r*H, r*W)``; the gradient is :func:`space2depth`."""

    def __init__(self, r: int) -> None:
        self.r = r

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("X",))
        x_type = in_types[0]
        type_check.expect(x_type.dtype.kind == "f", x_type.ndim == 4)
        rr = type_check.make_variable(self.r * self.r, "r * r")
        type_check.expect(x_type.shape[1] % rr == 0)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        X = inputs[0]
        b, c, h, w = X.shape
        r = self.r
        c //= r * r
        # Channel (i * r + j) * C + k goes to pixel (r * y + i, r * x + j) of channel k.
        y = X.reshape(b, r, r, c, h, w).transpose(0, 3, 4, 1, 5, 2).reshape(b, c, h * r, w * r)
        return (y,)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.array import space2depth

        return (space2depth.space2depth(grad_outputs[0], self.r),)


def depth2space(X: Any, r: int) -> variable.Variable:
    """Rearrange channels into ``r x r`` spatial blocks (the inverse of :func:`space2depth`).

    Channel ``(i * r + j) * C + k`` of the input becomes the pixel at offset ``(i, j)`` of
    each ``r x r`` block of output channel ``k``.

    Args:
        X: Variable of shape ``(B, r * r * C, H, W)`` and a floating dtype.
        r: Block size (a positive int).

    Returns:
        A variable of shape ``(B, C, r * H, r * W)``.

    Example:
        >>> X = np.arange(8, dtype='f').reshape(1, 4, 1, 2)
        >>> F.depth2space(X, 2).array
        array([[[[0., 2., 1., 3.],
                 [4., 6., 5., 7.]]]], dtype=float32)
    """
    where = "chainer.functions.depth2space"
    r = _util.as_int(r, where, "r")
    if r <= 0:
        raise ValueError(f"{where}: r must be positive, got {r}")
    return Depth2Space(r).apply((X,))[0]


__all__ = ["depth2space"]
