"""Two-dimensional average pooling."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer import variable
from chainer.functions.pooling import _pooling_kernels as P
from chainer.functions.pooling import average_pooling_nd, pooling_2d


class AveragePooling2D(average_pooling_nd.AveragePoolingND, pooling_2d.Pooling2D):
    """Average pooling on two spatial axes; padding counts as zeros."""

    def __init__(
        self,
        ksize: int | Sequence[int],
        stride: int | Sequence[int] | None = None,
        pad: int | Sequence[int] = 0,
        cover_all: bool = False,
    ) -> None:
        if cover_all:
            raise ValueError("AveragePooling2D: cover_all=True is not supported")
        k, s, p = P.pooling_args(2, ksize, stride, pad, "chainer.functions.average_pooling_2d")
        average_pooling_nd.AveragePoolingND.__init__(self, 2, k, s, p, 0)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return AveragePooling2DGrad(self).apply(grad_outputs)


class AveragePooling2DGrad(average_pooling_nd.AveragePoolingNDGrad):
    """:class:`~chainer.functions.pooling.average_pooling_nd.AveragePoolingNDGrad` of an
    :class:`AveragePooling2D` node."""


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
    return AveragePooling2D(ksize, stride, pad).apply((x,))[0]


__all__ = ["average_pooling_2d"]
