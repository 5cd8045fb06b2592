"""N-dimensional max pooling, and its 1-D and 3-D forms."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer import function_node
from chainer.functions.pooling import _pooling_kernels as P
from chainer.utils import type_check


class MaxPoolingND(function_node.FunctionNode):
    """Maximum over each window; remembers which element won (the first maximum)."""

    def __init__(
        self,
        ndim: int,
        ksize: Sequence[int],
        stride: Sequence[int],
        pad: Sequence[int],
        cover_all: bool = True,
    ) -> None:
        self.ndim = ndim
        self.ksize = tuple(ksize)
        self.stride = tuple(stride)
        self.pad = tuple(pad)
        self.cover_all = bool(cover_all)
        self.indexes: Any = None
        self.geometry: P.Geometry | None = None

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type = in_types[0]
        type_check.expect(x_type.dtype.kind == "f", x_type.ndim == self.ndim + 2)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        geometry = P.Geometry.from_input(x.shape[2:], self.ksize, self.stride, self.pad, self.cover_all)
        P.check_outsize(geometry, self.label)
        y, self.indexes = P.max_with_index(x, geometry)
        self.geometry = geometry
        return (y,)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        assert self.geometry is not None, "backward before forward"
        return P.IndexScatter(self.indexes, self.geometry, f"{self.label}Grad").apply(grad_outputs)


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


__all__ = ["max_pooling_1d", "max_pooling_3d", "max_pooling_nd"]
