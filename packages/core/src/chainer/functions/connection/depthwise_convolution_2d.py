"""Two-dimensional depthwise convolution."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer import variable
from chainer.functions.array import reshape, transpose
from chainer.functions.connection import convolution_2d, convolution_nd
from chainer.utils import type_check


def _check_types(has_bias: bool) -> Any:
    def check(in_types: Any) -> None:
        type_check._argname(in_types, ("x", "W", "b")[: 2 + has_bias])
        x_type, w_type = in_types[0], in_types[1]
        type_check.expect(
            x_type.dtype.kind == "f",
            w_type.dtype.kind == "f",
            x_type.ndim == 4,
            w_type.ndim == 4,
            x_type.shape[1] == w_type.shape[1],
        )
        if has_bias:
            b_type = in_types[2]
            type_check.expect(
                b_type.dtype == x_type.dtype, b_type.ndim == 1, b_type.shape[0] == w_type.shape[0] * w_type.shape[1]
            )

    return check


def depthwise_convolution_2d(
    x: Any, W: Any, b: Any = None, stride: int | Sequence[int] = 1, pad: int | Sequence[int] = 0
) -> variable.Variable:
    """Two-dimensional depthwise convolution: each input channel is convolved with its
    own ``channel_multiplier`` kernels, without mixing channels.

    Output channel ``c * channel_multiplier + m`` is input channel ``c`` convolved with
    ``W[m, c]``; this is :func:`convolution_2d` with ``groups = C``.

    Args:
        x: Input ``(N, C, H, W)``.
        W: Kernels ``(channel_multiplier, C, kh, kw)``.
        b: Optional bias ``(channel_multiplier * C,)``.
        stride: ``s`` or ``(sy, sx)``.
        pad: ``p`` or ``(ph, pw)``.

    Returns:
        Output ``(N, C * channel_multiplier, out_h, out_w)``.

    Example:
        >>> x = np.ones((1, 3, 4, 4), 'f'); W = np.ones((2, 3, 3, 3), 'f')
        >>> F.depthwise_convolution_2d(x, W).shape
        (1, 6, 2, 2)
    """
    args = (x, W) if b is None else (x, W, b)
    arrays = tuple(a.array if isinstance(a, variable.Variable) else a for a in args)
    type_check.run_check(_check_types(b is not None), arrays, "DepthwiseConvolution2D")
    m, c, kh, kw = arrays[1].shape
    grouped = reshape.reshape(transpose.transpose(W, (1, 0, 2, 3)), (c * m, 1, kh, kw))
    return convolution_nd._convolution(
        x,
        grouped,
        b,
        stride,
        pad,
        False,
        1,
        c,
        2,
        "chainer.functions.depthwise_convolution_2d",
        convolution_2d._make_2d,
    )


__all__ = ["depthwise_convolution_2d"]
