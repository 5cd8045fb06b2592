"""Two-dimensional max pooling."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer.functions.pooling import _pooling_kernels as P
from chainer.functions.pooling import max_pooling_nd


class MaxPooling2D(max_pooling_nd.MaxPoolingND):
    """:class:`~chainer.functions.pooling.max_pooling_nd.MaxPoolingND` on two spatial axes."""

    def __init__(
        self,
        ksize: int | Sequence[int],
        stride: int | Sequence[int] | None = None,
        pad: int | Sequence[int] = 0,
        cover_all: bool = True,
    ) -> None:
        k, s, p = P.pooling_args(2, ksize, stride, pad, "chainer.functions.max_pooling_2d")
        super().__init__(2, k, s, p, cover_all)

    # Per-axis names of the geometry, as Chainer's 2-D function exposes them.
    kh = property(lambda self: self.ksize[0])
    kw = property(lambda self: self.ksize[1])
    sy = property(lambda self: self.stride[0])
    sx = property(lambda self: self.stride[1])
    ph = property(lambda self: self.pad[0])
    pw = property(lambda self: self.pad[1])


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
    return max_pooling_nd._max_pooling(x, MaxPooling2D(ksize, stride, pad, cover_all), return_indices)


__all__ = ["max_pooling_2d"]
