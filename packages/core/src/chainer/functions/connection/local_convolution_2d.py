"""Two-dimensional locally-connected convolution (no weight sharing)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer import variable
from chainer.functions.array import im2col, reshape, transpose
from chainer.functions.connection import _conv_kernels as K
from chainer.functions.math import matmul
from chainer.utils import type_check


def _check_types(stride: tuple[int, ...], has_bias: bool) -> Any:
    def check(in_types: Any) -> None:
        type_check._argname(in_types, ("x", "W", "b")[: 2 + has_bias])
        x_type, w_type = in_types[0], in_types[1]
        type_check.expect(
            x_type.dtype.kind == "f",
            w_type.dtype == x_type.dtype,
            x_type.ndim == 4,
            w_type.ndim == 6,
            x_type.shape[1] == w_type.shape[3],
        )
        h, w = type_check.eval(x_type.shape)[2:]
        kh, kw = type_check.eval(w_type.shape)[4:]
        out_h = type_check.make_variable(K.conv_outsize(h, kh, stride[0], 0, 1, False), "out_h")
        out_w = type_check.make_variable(K.conv_outsize(w, kw, stride[1], 0, 1, False), "out_w")
        type_check.expect(w_type.shape[1] == out_h, w_type.shape[2] == out_w)
        if has_bias:
            b_type = in_types[2]
            type_check.expect(
                b_type.dtype == x_type.dtype,
                b_type.ndim == 3,
                b_type.shape[0] == w_type.shape[0],
                b_type.shape[1] == w_type.shape[1],
                b_type.shape[2] == w_type.shape[2],
            )

    return check


def local_convolution_2d(x: Any, W: Any, b: Any = None, stride: int | Sequence[int] = 1) -> variable.Variable:
    """Two-dimensional local convolution: like :func:`convolution_2d` without padding,
    but every output position has its own kernel.

    .. math::
        y_{n,o,i,j} = b_{o,i,j} + \\sum_{c,p,q} W_{o,i,j,c,p,q}\\, x_{n,c,i s_y + p,\\, j s_x + q}

    Args:
        x: Input of shape ``(N, C, H, W)``.
        W: Kernels of shape ``(O, out_h, out_w, C, kh, kw)`` with ``out_h = (H - kh) //
            sy + 1`` and ``out_w = (W - kw) // sx + 1``.
        b: Optional bias of shape ``(O, out_h, out_w)``.
        stride: ``s`` or ``(sy, sx)``.

    Returns:
        Output of shape ``(N, O, out_h, out_w)``.

    Example:
        >>> x = np.ones((1, 2, 3, 3), 'f'); W = np.ones((4, 2, 2, 2, 2, 2), 'f')
        >>> F.local_convolution_2d(x, W).shape
        (1, 4, 2, 2)
    """
    where = "chainer.functions.local_convolution_2d"
    s = K.as_tuple(stride, 2, "stride", where)
    args = (x, W) if b is None else (x, W, b)
    arrays = tuple(a.array if isinstance(a, variable.Variable) else a for a in args)
    type_check.run_check(_check_types(s, b is not None), arrays, "LocalConvolution2D")
    x, W = variable.as_variable(x), variable.as_variable(W)
    n, c = x.shape[:2]
    o, out_h, out_w, _, kh, kw = W.shape
    col = im2col.im2col(x, (kh, kw), s)  # (N, C k k, out_h, out_w)
    # One batched GEMM over the output positions: (L, N, C k k) @ (L, C k k, O).
    col = reshape.reshape(transpose.transpose(col, (2, 3, 0, 1)), (out_h * out_w, n, c * kh * kw))
    w = reshape.reshape(transpose.transpose(W, (1, 2, 3, 4, 5, 0)), (out_h * out_w, c * kh * kw, o))
    y = matmul.matmul(col, w)  # (L, N, O)
    y = reshape.reshape(transpose.transpose(y, (1, 2, 0)), (n, o, out_h, out_w))
    if b is not None:
        y = y + reshape.reshape(b, (1, o, out_h, out_w))
    return y


__all__ = ["local_convolution_2d"]
