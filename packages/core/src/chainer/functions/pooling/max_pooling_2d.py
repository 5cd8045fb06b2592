"""Two-dimensional max pooling."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer.functions.pooling import max_pooling_nd


def max_pooling_2d(
    x: Any,
    ksize: int | Sequence[int],
    stride: int | Sequence[int] | None = None,
    pad: int | Sequence[int] = 0,
    cover_all: bool = True,
    return_indices: bool = False,
) -> Any:
    """Spatial max pooling over ``x`` of shape ``(N, C, H, W)``.

    Args:
        x: Input variable ``(N, C, H, W)``.
        ksize: ``k`` or ``(kh, kw)``.
        stride: ``s`` or ``(sy, sx)``; ``None`` (default) means ``ksize``.
        pad: ``p`` or ``(ph, pw)``; padded elements are ``-inf``.
        cover_all: If ``True`` (default) the windows cover the whole input, the last
            ones reaching into extra padding if needed.
        return_indices: Also return, per output, the flat index ``dy * kw + dx`` of the
            maximum inside its window (for :func:`upsampling_2d`).

    Returns:
        ``y`` of shape ``(N, C, out_h, out_w)``, or ``(y, indexes)``.

    Example:
        >>> x = np.arange(16, dtype='f').reshape(1, 1, 4, 4)
        >>> F.max_pooling_2d(x, 2).array
        array([[[[ 5.,  7.],
                 [13., 15.]]]], dtype=float32)
    """
    return max_pooling_nd._max_pooling(
        x, ksize, stride, pad, cover_all, return_indices, 2, "chainer.functions.max_pooling_2d", "MaxPooling2D"
    )


__all__ = ["max_pooling_2d"]
