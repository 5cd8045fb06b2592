"""Upsampling with the indices of a max pooling."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer import backend, variable
from chainer.functions.pooling import _pooling_kernels as P
from chainer.functions.pooling import unpooling_nd
from chainer.utils import type_check


class Upsampling2D(unpooling_nd.WindowSpreading):
    """Put each input pixel at the position ``indexes`` names inside its window."""

    def __init__(
        self,
        indexes: Any,
        ksize: Sequence[int],
        stride: Sequence[int],
        pad: Sequence[int],
        outsize: Sequence[int] | None,
        cover_all: bool,
    ) -> None:
        super().__init__(ksize, stride, pad, outsize, cover_all)
        self.indexes = indexes

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type = in_types[0]
        indexes_shape = type_check.make_variable(tuple(self.indexes.shape), "indexes.shape")
        type_check.expect(x_type.dtype.kind == "f", x_type.ndim == 4, x_type.shape == indexes_shape)
        self._check_outsize(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        geometry = self._set_geometry(x)
        # Indexes kept on another device (e.g. NumPy ones for a CuPy x) move to x's.
        self.indexes = backend.get_device_from_array(x).send(self.indexes)
        return (P.index_scatter(x, self.indexes, geometry),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return Upsampling2DGrad(self).apply(grad_outputs)


class Upsampling2DGrad(P.IndexGather):
    """The gradient of an :class:`Upsampling2D` node after its forward: each input pixel
    takes the output gradient at the position it was put. Its own gradient is the
    upsampling again."""

    def __init__(self, upsampling2d: Upsampling2D) -> None:
        geometry = getattr(upsampling2d, "geometry", None)
        if geometry is None:
            raise RuntimeError(f"{type(self).__name__}: the upsampling node has not run its forward pass yet")
        super().__init__(upsampling2d.indexes, geometry, "Upsampling2DGrad")


def upsampling_2d(
    x: Any,
    indexes: Any,
    ksize: int | Sequence[int],
    stride: int | Sequence[int] | None = None,
    pad: int | Sequence[int] = 0,
    outsize: Sequence[int] | None = None,
    cover_all: bool = True,
) -> variable.Variable:
    """Upsampling with pooling indices: the inverse of :func:`max_pooling_2d`.

    Each pixel of ``x`` is written at the position of its window that ``indexes``
    names (``dy * kw + dx``, as returned by ``max_pooling_2d(...,
    return_indices=True)``); every other output pixel is zero. Where windows overlap,
    values sent to the same pixel add up.

    Args:
        x: Input variable ``(N, C, H, W)``.
        indexes: Integer array of ``x``'s shape with values in ``[0, kh * kw)``; it is
            moved to ``x``'s device if it is on another.
        ksize: ``k`` or ``(kh, kw)`` of the pooling.
        stride: ``s`` or ``(sy, sx)``; ``None`` means ``ksize``.
        pad: ``p`` or ``(ph, pw)``.
        outsize: ``(out_h, out_w)``; by default the smallest size that pools back to
            ``(H, W)``.
        cover_all: Whether the pooling used ``cover_all``.

    Returns:
        Output of shape ``(N, C, out_h, out_w)``.

    Example:
        >>> x = np.arange(16, dtype='f').reshape(1, 1, 4, 4)
        >>> y, idx = F.max_pooling_2d(x, 2, return_indices=True)
        >>> F.upsampling_2d(y, idx, 2, outsize=(4, 4)).array[0, 0]
        array([[ 0.,  0.,  0.,  0.],
               [ 0.,  5.,  0.,  7.],
               [ 0.,  0.,  0.,  0.],
               [ 0., 13.,  0., 15.]], dtype=float32)
    """
    where = "chainer.functions.upsampling_2d"
    k, s, p, outsize = unpooling_nd.unpooling_args(2, ksize, stride, pad, outsize, where)
    if isinstance(indexes, variable.Variable):
        indexes = indexes.array
    if not hasattr(indexes, "dtype") or indexes.dtype.kind not in "iu":
        raise TypeError(f"{where}: indexes must be an integer array, got {type(indexes).__name__}")
    if indexes.size:
        xp = backend.get_array_module(indexes)
        low, high = int(xp.min(indexes)), int(xp.max(indexes))
        if low < 0 or high >= k[0] * k[1]:
            raise ValueError(
                f"{where}: indexes must lie in [0, {k[0] * k[1]}) for ksize={k}; got values in [{low}, {high}]"
            )
    return Upsampling2D(indexes, k, s, p, outsize, cover_all).apply((x,))[0]


__all__ = ["upsampling_2d"]
