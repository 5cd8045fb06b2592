"""Two-dimensional unpooling."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer import variable
from chainer.functions.pooling import unpooling_nd


def unpooling_2d(
    x: Any,
    ksize: int | Sequence[int],
    stride: int | Sequence[int] | None = None,
    pad: int | Sequence[int] = 0,
    outsize: Sequence[int] | None = None,
    cover_all: bool = True,
) -> variable.Variable:
    """Inverse of 2-D pooling: each pixel of ``x`` ``(N, C, H, W)`` is copied to every
    position of its ``ksize`` window in the output (overlapping copies add up).

    Args:
        x: Input variable ``(N, C, H, W)``.
        ksize: ``k`` or ``(kh, kw)``.
        stride: ``s`` or ``(sy, sx)``; ``None`` means ``ksize``.
        pad: ``p`` or ``(ph, pw)``, cropped from the output.
        outsize: ``(out_h, out_w)``; by default ``sy (H - 1) + kh - 2 ph`` (``sy - 1``
            less with ``cover_all``), and likewise for the width.
        cover_all: Whether the pooling this inverts used ``cover_all``.

    Returns:
        Output of shape ``(N, C, out_h, out_w)``.

    Example:
        >>> x = np.array([[[[1., 2.], [3., 4.]]]], 'f')
        >>> F.unpooling_2d(x, 2, cover_all=False).array[0, 0]
        array([[1., 1., 2., 2.],
               [1., 1., 2., 2.],
               [3., 3., 4., 4.],
               [3., 3., 4., 4.]], dtype=float32)
    """
    return unpooling_nd._unpooling(
        x, ksize, stride, pad, outsize, cover_all, 2, "chainer.functions.unpooling_2d", "Unpooling2D"
    )


__all__ = ["unpooling_2d"]
