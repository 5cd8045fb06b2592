"""Two-dimensional unpooling."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer import variable
from chainer.functions.pooling import unpooling_nd


class Unpooling2D(unpooling_nd.UnpoolingND):
    """:class:`~chainer.functions.pooling.unpooling_nd.UnpoolingND` on two spatial axes."""

    def __init__(
        self,
        ksize: int | Sequence[int],
        stride: int | Sequence[int] | None = None,
        pad: int | Sequence[int] = 0,
        outsize: Sequence[int] | None = None,
        cover_all: bool = True,
    ) -> None:
        k, s, p, outsize = unpooling_nd.unpooling_args(2, ksize, stride, pad, outsize, "chainer.functions.unpooling_2d")
        super().__init__(2, k, s, p, outsize, cover_all)

    # Per-axis names of the geometry, as Chainer's 2-D function exposes them.
    kh = property(lambda self: self.ksize[0])
    kw = property(lambda self: self.ksize[1])
    sy = property(lambda self: self.stride[0])
    sx = property(lambda self: self.stride[1])
    ph = property(lambda self: self.pad[0])
    pw = property(lambda self: self.pad[1])
    outh = property(lambda self: None if self.outsize is None else self.outsize[0])
    outw = property(lambda self: None if self.outsize is None else self.outsize[1])

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return Unpooling2DGrad(self).apply(grad_outputs)


class Unpooling2DGrad(unpooling_nd.UnpoolingNDGrad):
    """:class:`~chainer.functions.pooling.unpooling_nd.UnpoolingNDGrad` of an
    :class:`Unpooling2D` node."""


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
    return Unpooling2D(ksize, stride, pad, outsize, cover_all).apply((x,))[0]


__all__ = ["unpooling_2d"]
