"""Output-size arithmetic of convolution and pooling, and the two-dimensional
im2col / col2im of image batches on raw arrays (NumPy or CuPy)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy


def get_conv_outsize(size: int, k: int, s: int, p: int, cover_all: bool = False, d: int = 1) -> int:
    """Output length of a convolution along one axis.

    Args:
        size: Input length. k: Kernel size. s: Stride. p: Padding (each side).
        cover_all: Add one more output if the last window would cut off input.
        d: Dilation.
    """
    dk = k + (k - 1) * (d - 1)
    if cover_all:
        return (size + p * 2 - dk + s - 1) // s + 1
    return (size + p * 2 - dk) // s + 1


def get_deconv_outsize(size: int, k: int, s: int, p: int, cover_all: bool = False, d: int = 1) -> int:
    """Output length of a deconvolution (transposed convolution) along one axis."""
    dk = (k - 1) * d + 1
    if cover_all:
        return s * (size - 1) + dk - s + 1 - 2 * p
    return s * (size - 1) + dk - 2 * p


def _check_array_module(array: Any, gpu: bool, where: str) -> None:
    """The ``_cpu`` helpers take NumPy arrays and the ``_gpu`` ones CuPy arrays."""
    is_numpy = isinstance(array, numpy.ndarray)
    if gpu == is_numpy:
        wanted = "a CuPy array" if gpu else "a NumPy array"
        raise TypeError(
            f"chainer.utils.{where}: the image must be {wanted}, got {type(array).__module__}.{type(array).__name__}"
        )


def _im2col(
    img: Any,
    ksize: Sequence[int],
    stride: Sequence[int],
    pad: Sequence[int],
    pval: Any,
    cover_all: bool,
    dilate: Sequence[int],
    outsize: Sequence[int | None],
) -> Any:
    from chainer.functions.connection import _conv_kernels

    size = img.shape[2:]
    outs = tuple(
        get_conv_outsize(n, k, s, p, cover_all, d) if o is None else int(o)
        for n, k, s, p, d, o in zip(size, ksize, stride, pad, dilate, outsize)
    )
    if any(o <= 0 for o in outs):
        raise ValueError(
            f"chainer.utils.conv: the output size {outs} is not positive for an image of spatial size {tuple(size)} "
            f"(ksize {tuple(ksize)}, stride {tuple(stride)}, pad {tuple(pad)}, dilate {tuple(dilate)})"
        )
    geometry = (tuple(ksize), tuple(stride), tuple(pad), tuple(dilate), outs)
    _conv_kernels.check_extent("chainer.utils.conv.im2col", img.shape, img.dtype.itemsize, *geometry)
    view = _conv_kernels.im2col_view(img, *geometry, pval)
    # A fresh C-contiguous array: the view shares memory with the (padded) image.
    return view.copy()


def _col2im(col: Any, stride: Sequence[int], pad: Sequence[int], size: Sequence[int], dilate: Sequence[int]) -> Any:
    from chainer.functions.connection import _conv_kernels

    size = tuple(int(n) for n in size)
    stride, pad, dilate = tuple(stride), tuple(pad), tuple(dilate)
    image_shape = col.shape[:2] + size
    ksize, outsize = col.shape[2:4], col.shape[4:]
    _conv_kernels.check_extent(
        "chainer.utils.conv.col2im", image_shape, col.dtype.itemsize, ksize, stride, pad, dilate, outsize
    )
    return _conv_kernels.col2im(col, stride, pad, dilate, size)


def im2col_cpu(
    img: Any,
    kh: int,
    kw: int,
    sy: int,
    sx: int,
    ph: int,
    pw: int,
    pval: Any = 0,
    cover_all: bool = False,
    dy: int = 1,
    dx: int = 1,
    out_h: int | None = None,
    out_w: int | None = None,
) -> Any:
    """The patches of a NumPy image batch ``(n, c, h, w)``: ``(n, c, kh, kw, out_h, out_w)``.

    ``col[:, :, ky, kx, y, x]`` is the pixel at row ``y * sy - ph + ky * dy`` and column
    ``x * sx - pw + kx * dx`` of the image, or ``pval`` where that lies in the padding.
    ``out_h`` and ``out_w`` default to :func:`get_conv_outsize` (with ``cover_all``).
    The result is a new C-contiguous array.
    """
    _check_array_module(img, False, "conv.im2col_cpu")
    return _im2col(img, (kh, kw), (sy, sx), (ph, pw), pval, cover_all, (dy, dx), (out_h, out_w))


def im2col_gpu(
    img: Any,
    kh: int,
    kw: int,
    sy: int,
    sx: int,
    ph: int,
    pw: int,
    cover_all: bool = False,
    dy: int = 1,
    dx: int = 1,
    out_h: int | None = None,
    out_w: int | None = None,
) -> Any:
    """:func:`im2col_cpu` of a CuPy image batch (the padding reads as 0)."""
    _check_array_module(img, True, "conv.im2col_gpu")
    return _im2col(img, (kh, kw), (sy, sx), (ph, pw), 0, cover_all, (dy, dx), (out_h, out_w))


def im2col(
    img: Any,
    kh: int,
    kw: int,
    sy: int,
    sx: int,
    ph: int,
    pw: int,
    cover_all: bool = False,
    dy: int = 1,
    dx: int = 1,
    out_h: int | None = None,
    out_w: int | None = None,
) -> Any:
    """:func:`im2col_cpu` or :func:`im2col_gpu`, whichever fits the array."""
    return _im2col(img, (kh, kw), (sy, sx), (ph, pw), 0, cover_all, (dy, dx), (out_h, out_w))


def col2im_cpu(col: Any, sy: int, sx: int, ph: int, pw: int, h: int, w: int, dy: int = 1, dx: int = 1) -> Any:
    """The adjoint of :func:`im2col_cpu` on NumPy arrays: sums the patches
    ``(n, c, kh, kw, out_h, out_w)`` back onto an image ``(n, c, h, w)``; overlapping
    patch elements add up and those in the padding are dropped."""
    _check_array_module(col, False, "conv.col2im_cpu")
    return _col2im(col, (sy, sx), (ph, pw), (h, w), (dy, dx))


def col2im_gpu(col: Any, sy: int, sx: int, ph: int, pw: int, h: int, w: int, dy: int = 1, dx: int = 1) -> Any:
    """:func:`col2im_cpu` of CuPy arrays."""
    _check_array_module(col, True, "conv.col2im_gpu")
    return _col2im(col, (sy, sx), (ph, pw), (h, w), (dy, dx))


def col2im(col: Any, sy: int, sx: int, ph: int, pw: int, h: int, w: int, dy: int = 1, dx: int = 1) -> Any:
    """:func:`col2im_cpu` or :func:`col2im_gpu`, whichever fits the array."""
    return _col2im(col, (sy, sx), (ph, pw), (h, w), (dy, dx))
