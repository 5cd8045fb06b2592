"""N-dimensional im2col / col2im of image batches on raw arrays (NumPy or CuPy).

An image batch is ``(n, c, d_1, ..., d_N)``; its patches are
``(n, c, k_1, ..., k_N, out_1, ..., out_N)`` where ``col[:, :, k..., o...]`` is the
pixel at ``o * stride - pad + k * dilate`` along each axis (0 in the padding).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer.utils import conv
from chainer.utils.conv import get_conv_outsize, get_deconv_outsize

__all__ = [
    "as_tuple",
    "col2im_nd",
    "col2im_nd_cpu",
    "col2im_nd_gpu",
    "get_conv_outsize",
    "get_deconv_outsize",
    "im2col_nd",
    "im2col_nd_cpu",
    "im2col_nd_gpu",
]


def as_tuple(x: Any, n: int) -> tuple[Any, ...]:
    """``x`` as a tuple of ``n`` values: a sequence must have ``n`` entries (an
    AssertionError otherwise, as in Chainer); anything else is repeated ``n`` times."""
    if hasattr(x, "__getitem__"):
        assert len(x) == n, f"chainer.utils.conv_nd.as_tuple: expected {n} values, got {len(x)}: {x!r}"
        return tuple(x)
    return (x,) * n


def _im2col_nd(img: Any, ksize: Any, stride: Any, pad: Any, pval: Any, cover_all: bool, dilate: Any) -> Any:
    # as_tuple raises AssertionError for a rank that does not match, as Chainer did.
    n = img.ndim - 2
    ksize, stride, pad, dilate = (as_tuple(v, n) for v in (ksize, stride, pad, dilate))
    return conv._im2col(img, ksize, stride, pad, pval, cover_all, dilate, (None,) * n)


def im2col_nd_cpu(
    img: Any, ksize: Any, stride: Any, pad: Any, pval: Any = 0, cover_all: bool = False, dilate: Any = 1
) -> Any:
    """The patches of a NumPy image batch, ``(n, c, *ksize, *outsize)`` (a new array);
    the padding reads as ``pval``. ``ksize``, ``stride``, ``pad`` and ``dilate`` are one
    int per spatial axis (or an int for all)."""
    conv._check_array_module(img, False, "conv_nd.im2col_nd_cpu")
    return _im2col_nd(img, ksize, stride, pad, pval, cover_all, dilate)


def im2col_nd_gpu(img: Any, ksize: Any, stride: Any, pad: Any, cover_all: bool = False, dilate: Any = 1) -> Any:
    """:func:`im2col_nd_cpu` of a CuPy image batch (the padding reads as 0)."""
    conv._check_array_module(img, True, "conv_nd.im2col_nd_gpu")
    return _im2col_nd(img, ksize, stride, pad, 0, cover_all, dilate)


def im2col_nd(img: Any, ksize: Any, stride: Any, pad: Any, cover_all: bool = False, dilate: Any = 1) -> Any:
    """:func:`im2col_nd_cpu` or :func:`im2col_nd_gpu`, whichever fits the array."""
    return _im2col_nd(img, ksize, stride, pad, 0, cover_all, dilate)


def _col2im_nd(col: Any, stride: Any, pad: Any, dims: Sequence[int], dilate: Any, where: str) -> Any:
    n = len(dims)
    assert col.ndim == 2 + 2 * n, (
        f"chainer.utils.conv_nd.{where}: col must have 2 + 2 * {n} axes for {n} spatial axes, got shape {col.shape}"
    )
    return conv._col2im(col, as_tuple(stride, n), as_tuple(pad, n), dims, as_tuple(dilate, n))


def col2im_nd_cpu(col: Any, stride: Any, pad: Any, dims: Sequence[int], dilate: Any = 1) -> Any:
    """The adjoint of :func:`im2col_nd_cpu` on NumPy arrays: sums the patches back onto
    an image batch of spatial size ``dims`` (overlaps add up, padding is dropped)."""
    conv._check_array_module(col, False, "conv_nd.col2im_nd_cpu")
    return _col2im_nd(col, stride, pad, dims, dilate, "col2im_nd_cpu")


def col2im_nd_gpu(col: Any, stride: Any, pad: Any, dims: Sequence[int], dilate: Any = 1) -> Any:
    """:func:`col2im_nd_cpu` of CuPy arrays."""
    conv._check_array_module(col, True, "conv_nd.col2im_nd_gpu")
    return _col2im_nd(col, stride, pad, dims, dilate, "col2im_nd_gpu")


def col2im_nd(col: Any, stride: Any, pad: Any, dims: Sequence[int], dilate: Any = 1) -> Any:
    """:func:`col2im_nd_cpu` or :func:`col2im_nd_gpu`, whichever fits the array."""
    return _col2im_nd(col, stride, pad, dims, dilate, "col2im_nd")
