"""N-dimensional max pooling, and its 1-D, 2-D and 3-D forms."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer.functions.pooling import _pooling_kernels as P
from chainer.functions.pooling import pooling_2d, pooling_nd


class MaxPoolingND(pooling_nd._PoolingND):
    """Maximum over each window; remembers which element won (the first maximum).

    After ``forward``, ``indexes`` holds the position of each window's maximum as a flat
    index over the window (padding included).
    """

    def __init__(
        self,
        ndim: int,
        ksize: int | Sequence[int],
        stride: int | Sequence[int] | None = None,
        pad: int | Sequence[int] = 0,
        cover_all: bool = True,
        return_indices: bool = False,
    ) -> None:
        pooling_nd._PoolingND.__init__(self, ndim, ksize, stride, pad, cover_all)
        self.return_indices = return_indices
        self.indexes: Any = None
        self.geometry: P.Geometry | None = None

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        geometry = P.Geometry.from_input(x.shape[2:], self.ksize, self.stride, self.pad, self.cover_all)
        P.check_outsize(geometry, self.label)
        y, self.indexes = P.max_with_index(x, geometry)
        self.geometry = geometry
        return (y,)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return MaxPoolingNDGrad(self).apply(grad_outputs)


class MaxPoolingNDGrad(P.IndexScatter):
    """The gradient of a :class:`MaxPoolingND` node after its forward: each window's
    gradient goes to the element that was its maximum (overlaps add up). Its own gradient
    is :class:`MaxPoolingNDWithIndexes` of the same node."""

    def __init__(self, mpoolnd: MaxPoolingND) -> None:
        if mpoolnd.geometry is None:
            raise RuntimeError(f"{type(self).__name__}: the pooling node has not run its forward pass yet")
        super().__init__(mpoolnd.indexes, mpoolnd.geometry, f"{mpoolnd.label}Grad")
        self._mpoolnd = mpoolnd

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return MaxPoolingNDWithIndexes(self._mpoolnd).apply(grad_outputs)


class MaxPoolingNDWithIndexes(P.IndexGather):
    """Pools an input with the maxima positions a :class:`MaxPoolingND` node found: each
    window gives its element at that position (linear in the input). Its gradient is
    :class:`MaxPoolingNDGrad` of the same node."""

    def __init__(self, mpoolnd: MaxPoolingND) -> None:
        if mpoolnd.geometry is None:
            raise RuntimeError(f"{type(self).__name__}: the pooling node has not run its forward pass yet")
        super().__init__(mpoolnd.indexes, mpoolnd.geometry, f"{mpoolnd.label}WithIndexes")
        self._mpoolnd = mpoolnd

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return MaxPoolingNDGrad(self._mpoolnd).apply(grad_outputs)


class MaxPooling2D(MaxPoolingND, pooling_2d.Pooling2D):
    """:class:`MaxPoolingND` on two spatial axes (with the per-axis names of
    :class:`~chainer.functions.pooling.pooling_2d.Pooling2D`)."""

    def __init__(
        self,
        ksize: int | Sequence[int],
        stride: int | Sequence[int] | None = None,
        pad: int | Sequence[int] = 0,
        cover_all: bool = True,
        return_indices: bool = False,
    ) -> None:
        k, s, p = P.pooling_args(2, ksize, stride, pad, "chainer.functions.max_pooling_2d")
        MaxPoolingND.__init__(self, 2, k, s, p, cover_all, return_indices)


def _max_pooling(x: Any, node: MaxPoolingND, return_indices: bool) -> Any:
    y = node.apply((x,))[0]
    if return_indices:
        indexes = node.indexes
        return y, indexes.astype("i", copy=False) if indexes.dtype.itemsize < 4 else indexes
    return y


def _nd_node(ndim: int, ksize: Any, stride: Any, pad: Any, cover_all: bool, where: str) -> MaxPoolingND:
    k, s, p = P.pooling_args(ndim, ksize, stride, pad, where)
    return MaxPoolingND(ndim, k, s, p, cover_all)


def check_spatial_ndim(x: Any, ndim: int, where: str) -> None:
    actual = len(getattr(x, "shape", ())) - 2
    if actual != ndim:
        raise ValueError(
            f"{where}: x must have {ndim} spatial axis(es) after the batch and channel axes; "
            f"got an input of shape {tuple(getattr(x, 'shape', ()))}"
        )


def max_pooling_nd(
    x: Any,
    ksize: int | Sequence[int],
    stride: int | Sequence[int] | None = None,
    pad: int | Sequence[int] = 0,
    cover_all: bool = True,
    return_indices: bool = False,
) -> Any:
    """N-dimensional max pooling: the maximum over each window of ``x``.

    Args:
        x: Input of shape ``(N, C, S_1, ..., S_d)``.
        ksize: Window size (an int or ``d`` ints).
        stride: Window stride; ``None`` means ``ksize`` (non-overlapping windows).
        pad: Padding on both sides; padded elements never win (they are ``-inf``).
        cover_all: If ``True`` (default), add windows at the end so every input element
            is covered.
        return_indices: Also return the position of the maximum inside each window
            (a flat index into the window, row-major), as accepted by
            :func:`upsampling_2d`.

    Returns:
        The pooled variable of shape ``(N, C, L_1, ..., L_d)``, or ``(y, indexes)`` with
        an ``int32`` array of the same shape when ``return_indices`` is set.

    Example:
        >>> x = np.arange(8, dtype='f').reshape(1, 1, 8)
        >>> F.max_pooling_nd(x, 2).array
        array([[[1., 3., 5., 7.]]], dtype=float32)
    """
    ndim = max(1, len(getattr(x, "shape", ())) - 2)
    node = _nd_node(ndim, ksize, stride, pad, cover_all, "chainer.functions.max_pooling_nd")
    return _max_pooling(x, node, return_indices)


def max_pooling_1d(
    x: Any,
    ksize: int | Sequence[int],
    stride: int | Sequence[int] | None = None,
    pad: int | Sequence[int] = 0,
    cover_all: bool = True,
    return_indices: bool = False,
) -> Any:
    """1-dimensional max pooling: :func:`max_pooling_nd` on ``x`` of shape ``(N, C, S)``."""
    where = "chainer.functions.max_pooling_1d"
    check_spatial_ndim(x, 1, where)
    return _max_pooling(x, _nd_node(1, ksize, stride, pad, cover_all, where), return_indices)


def max_pooling_3d(
    x: Any,
    ksize: int | Sequence[int],
    stride: int | Sequence[int] | None = None,
    pad: int | Sequence[int] = 0,
    cover_all: bool = True,
    return_indices: bool = False,
) -> Any:
    """3-dimensional max pooling: :func:`max_pooling_nd` on ``x`` of shape ``(N, C, D, H, W)``."""
    where = "chainer.functions.max_pooling_3d"
    check_spatial_ndim(x, 3, where)
    return _max_pooling(x, _nd_node(3, ksize, stride, pad, cover_all, where), return_indices)


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
    return _max_pooling(x, MaxPooling2D(ksize, stride, pad, cover_all), return_indices)


__all__ = ["max_pooling_1d", "max_pooling_2d", "max_pooling_3d", "max_pooling_nd"]
