"""Rearranging spatial blocks into channels."""

from __future__ import annotations

from typing import Any

from chainer import function_node, variable
from chainer.functions.array import _util
from chainer.utils import type_check


class Space2Depth(function_node.FunctionNode):
    """``(B, C, r*H, r*W) -> (B, r*r*C, H, W)``; the gradient is :func:`depth2space`."""

    def __init__(self, r: int) -> None:
        self.r = r

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("X",))
        x_type = in_types[0]
        type_check.expect(x_type.dtype.kind == "f", x_type.ndim == 4)
        r = type_check.make_variable(self.r, "r")
        type_check.expect(x_type.shape[2] % r == 0, x_type.shape[3] % r == 0)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        X = inputs[0]
        b, c, h, w = X.shape
        r = self.r
        h //= r
        w //= r
        # Pixel (r * y + i, r * x + j) of channel k goes to channel (i * r + j) * C + k.
        y = X.reshape(b, c, h, r, w, r).transpose(0, 3, 5, 1, 2, 4).reshape(b, r * r * c, h, w)
        return (y,)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.array import depth2space

        return (depth2space.depth2space(grad_outputs[0], self.r),)


def space2depth(X: Any, r: int) -> variable.Variable:
    """Rearrange ``r x r`` spatial blocks into channels (the inverse of :func:`depth2space`).

    The pixel at offset ``(i, j)`` of each ``r x r`` block of channel ``k`` goes to
    channel ``(i * r + j) * C + k``.

    Args:
        X: Variable of shape ``(B, C, r * H, r * W)`` and a floating dtype.
        r: Block size (a positive int).

    Returns:
        A variable of shape ``(B, r * r * C, H, W)``.

    Example:
        >>> X = np.arange(8, dtype='f').reshape(1, 1, 2, 4)
        >>> F.space2depth(X, 2)[0, :, 0].array
        array([[0., 2.],
               [1., 3.],
               [4., 6.],
               [5., 7.]], dtype=float32)
    """
    where = "chainer.functions.space2depth"
    r = _util.as_int(r, where, "r")
    if r <= 0:
        raise ValueError(f"{where}: r must be positive, got {r}")
    return Space2Depth(r).apply((X,))[0]


__all__ = ["space2depth"]
