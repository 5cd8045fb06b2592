"""Array-level im2col / col2im for N-dimensional images (no autograd), with argument
checking.

Layout: an image batch is ``(n, c, *size)``; its columns are ``(n, c, *ksize, *outsize)``,
where ``col[:, :, k..., o...]`` is the padded image at ``o * stride + k * dilate`` (per
spatial axis), i.e. the input seen by kernel element ``k`` at output position ``o``.

The kernels themselves are those of the convolution and pooling functions
(:mod:`chainer.functions.connection._conv_kernels`): ``im2col_array`` is one strided view
of the padded image (no copy of the windows); ``col2im_array`` is its adjoint, adding
every column element back to the pixel it was read from.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer.functions.connection import _conv_kernels
from chainer.utils import conv


def _geometry(stride: Any, pad: Any, dilate: Any, nd: int, where: str) -> tuple[tuple[int, ...], ...]:
    return (
        _conv_kernels.as_tuple(stride, nd, "stride", where),
        _conv_kernels.as_tuple(pad, nd, "pad", where, minimum=0),
        _conv_kernels.as_tuple(dilate, nd, "dilate", where),
    )


def im2col_array(
    x: Any,
    ksize: Any,
    stride: Any = 1,
    pad: Any = 0,
    cover_all: bool = False,
    dilate: Any = 1,
    pad_value: Any = 0,
) -> Any:
    """Extract the sliding windows of an image batch.

    Args:
        x: Array of shape ``(n, c, *size)`` (NumPy or CuPy) with ``N = x.ndim - 2``
            spatial axes.
        ksize, stride, pad, dilate: An int (all axes) or ``N`` ints each. ``pad`` is added
            on both sides of every spatial axis.
        cover_all: Add an output position where the last window would otherwise leave
            input elements out (the extra padding reads as ``pad_value``).
        pad_value: Value of the padded elements.

    Returns:
        The columns, of shape ``(n, c, *ksize, *outsize)`` with
        ``outsize = get_conv_outsize(size, k, s, p, cover_all, d)`` per axis. It is a
        strided view of ``x`` (or of a padded copy): read-only on NumPy, and copied on
        the first reshape or write.

    Raises:
        ValueError: An argument is out of range or an output size would be below 1.
    """
    where = "im2col_array"
    nd = x.ndim - 2
    if nd < 1:
        raise ValueError(f"{where}: x must have shape (n, c, *size) with at least one spatial axis, got {x.shape}")
    ks = _conv_kernels.as_tuple(ksize, nd, "ksize", where)
    ss, ps, ds = _geometry(stride, pad, dilate, nd, where)
    size = x.shape[2:]
    outs = tuple(conv.get_conv_outsize(n, k, s, p, cover_all, d) for n, k, s, p, d in zip(size, ks, ss, ps, ds))
    if any(o <= 0 for o in outs):
        raise ValueError(
            f"{where}: the output size {outs} is not positive for input size {size}, ksize {ks}, stride {ss}, "
            f"pad {ps} and dilate {ds}"
        )
    _conv_kernels.check_extent(where, x.shape, x.dtype.itemsize, ks, ss, ps, ds, outs)
    return _conv_kernels.im2col_view(x, ks, ss, ps, ds, outs, pad_value)


def col2im_array(col: Any, stride: Any, pad: Any, out_size: Sequence[int], dilate: Any = 1) -> Any:
    """Add columns back into an image batch (the adjoint of :func:`im2col_array`).

    Args:
        col: Array of shape ``(n, c, *ksize, *outsize)`` with ``N`` spatial axes each.
        stride, pad, dilate: An int or ``N`` ints, as given to :func:`im2col_array`.
        out_size: The spatial size ``(h, w, ...)`` of the image to produce.

    Returns:
        An array of shape ``(n, c, *out_size)`` and the dtype of ``col``, where each pixel
        is the sum of the column elements read from it. Column elements that fall in the
        padding are dropped.
    """
    where = "col2im_array"
    if col.ndim < 4 or col.ndim % 2:
        raise ValueError(f"{where}: col must have shape (n, c, *ksize, *outsize), got {col.shape}")
    nd = (col.ndim - 2) // 2
    size = _conv_kernels.as_tuple(out_size, nd, "out_size", where, minimum=0)
    ss, ps, ds = _geometry(stride, pad, dilate, nd, where)
    ksize, outsize = col.shape[2 : 2 + nd], col.shape[2 + nd :]
    _conv_kernels.check_extent(where, col.shape[:2] + size, col.dtype.itemsize, ksize, ss, ps, ds, outsize)
    return _conv_kernels.col2im(col, ss, ps, ds, size)
