"""Two-dimensional average pooling."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer import variable
from chainer.functions.pooling import average_pooling_nd


def average_pooling_2d(
    x: Any,
    ksize: int | Sequence[int],
    stride: int | Sequence[int] | None = None,
    pad: int | Sequence[int] = 0,
) -> variable.Variable:
    """Spatial average pooling over ``x`` of shape ``(N, C, H, W)``.

    Every window is divided by ``kh * kw``: padded pixels count as zeros (use
    :func:`average_pooling_nd` with ``pad_value=None`` to leave them out).

    Args:
        x: Input variable ``(N, C, H, W)``.
        ksize: ``k`` or ``(kh, kw)``.
        stride: ``s`` or ``(sy, sx)``; ``None`` (default) means ``ksize``.
        pad: ``p`` or ``(ph, pw)``.

    Returns:
        Output of shape ``(N, C, (H + 2 ph - kh) // sy + 1, (W + 2 pw - kw) // sx + 1)``.

    Example:
        >>> x = np.arange(16, dtype='f').reshape(1, 1, 4, 4)
        >>> F.average_pooling_2d(x, 2).array
        array([[[[ 2.5,  4.5],
                 [10.5, 12.5]]]], dtype=float32)
    """
    return average_pooling_nd._average_pooling(
        x, ksize, stride, pad, 0, 2, "chainer.functions.average_pooling_2d", "AveragePooling2D"
    )


__all__ = ["average_pooling_2d"]
