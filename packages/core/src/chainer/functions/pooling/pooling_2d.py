"""The base of the two-dimensional pooling nodes."""

from __future__ import annotations

from collections.abc import Sequence

from chainer.functions.pooling import pooling_nd


class Pooling2D(pooling_nd._PoolingND):
    """A pooling over the two spatial axes of an input ``(N, C, H, W)``, with the
    per-axis names of its geometry (``kh, kw, sy, sx, ph, pw``) that Chainer's 2-D
    pooling nodes expose (exporters and hooks read them)."""

    def __init__(
        self,
        ksize: int | Sequence[int],
        stride: int | Sequence[int] | None = None,
        pad: int | Sequence[int] = 0,
        cover_all: bool = True,
    ) -> None:
        pooling_nd._PoolingND.__init__(self, 2, ksize, stride, pad, cover_all)

    kh = property(lambda self: self.ksize[0])
    kw = property(lambda self: self.ksize[1])
    sy = property(lambda self: self.stride[0])
    sx = property(lambda self: self.stride[1])
    ph = property(lambda self: self.pad[0])
    pw = property(lambda self: self.pad[1])
