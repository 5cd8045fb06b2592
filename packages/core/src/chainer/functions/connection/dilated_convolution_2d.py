"""Two-dimensional dilated convolution."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer import variable
from chainer.functions.connection import convolution_2d, convolution_nd


def dilated_convolution_2d(
    x: Any,
    W: Any,
    b: Any = None,
    stride: int | Sequence[int] = 1,
    pad: int | Sequence[int] = 0,
    dilate: int | Sequence[int] = 1,
    cover_all: bool = False,
) -> variable.Variable:
    """Two-dimensional dilated ("atrous") convolution: :func:`convolution_2d` whose
    kernel taps are ``dilate`` pixels apart.

    Args:
        x: Input ``(N, C, H, W)``.
        W: Kernel ``(O, C, kh, kw)``.
        b: Optional bias ``(O,)``.
        stride: ``s`` or ``(sy, sx)``.
        pad: ``p`` or ``(ph, pw)``.
        dilate: ``d`` or ``(dy, dx)``.
        cover_all: See :func:`convolution_2d`.

    Returns:
        Output ``(N, O, (H + 2 ph - (kh - 1) dy - 1) // sy + 1, ...)``.

    Example:
        >>> x = np.ones((1, 1, 5, 5), 'f'); W = np.ones((1, 1, 3, 3), 'f')
        >>> F.dilated_convolution_2d(x, W, dilate=2).shape
        (1, 1, 1, 1)
    """
    return convolution_nd._convolution(
        x,
        W,
        b,
        stride,
        pad,
        cover_all,
        dilate,
        1,
        2,
        "chainer.functions.dilated_convolution_2d",
        convolution_2d._make_2d,
    )


__all__ = ["dilated_convolution_2d"]
