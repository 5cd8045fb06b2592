"""Array-level im2col / col2im for N-dimensional images (no autograd).

Shared by :func:`chainer.functions.im2col` and the convolution and pooling functions.
Layout: an image batch is ``(n, c, *size)``; its columns are ``(n, c, *ksize, *outsize)``,
where ``col[:, :, k..., o...]`` is the padded image at ``o * stride + k * dilate`` (per
spatial axis), i.e. the input seen by kernel element ``k`` at output position ``o``.

``im2col_array`` builds the columns as one strided view of the padded image (no copy of
the windows); ``col2im_array`` is its adjoint: it adds every column element back to the
pixel it was read from, with one vectorised add per kernel element.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from chainer import backend
from chainer.utils import conv


def _expand(value: Any, ndim: int, name: str, where: str) -> tuple[int, ...]:
    if isinstance(value, (tuple, list)):
        values = tuple(int(v) for v in value)
        if len(values) != ndim:
            raise ValueError(f"{where}: {name} must be an int or a sequence of {ndim} ints, got {value!r}")
        return values
    return (int(value),) * ndim


def _check_positive(values: tuple[int, ...], name: str, where: str, allow_zero: bool = False) -> None:
    if any(v < 0 or (v == 0 and not allow_zero) for v in values):
        bound = "non-negative" if allow_zero else "positive"
        raise ValueError(f"{where}: {name} must be {bound}, got {values}")


def _span(out: int, k: int, s: int, d: int) -> int:
    """Extent of the padded input that ``out`` windows of kernel size ``k`` reach."""
    return (out - 1) * s + (k - 1) * d + 1


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
    ks = _expand(ksize, nd, "ksize", where)
    ss = _expand(stride, nd, "stride", where)
    ps = _expand(pad, nd, "pad", where)
    ds = _expand(dilate, nd, "dilate", where)
    _check_positive(ks, "ksize", where)
    _check_positive(ss, "stride", where)
    _check_positive(ds, "dilate", where)
    _check_positive(ps, "pad", where, allow_zero=True)
    size = x.shape[2:]
    outs = tuple(conv.get_conv_outsize(n, k, s, p, cover_all, d) for n, k, s, p, d in zip(size, ks, ss, ps, ds))
    if any(o <= 0 for o in outs):
        raise ValueError(
            f"{where}: the output size {outs} is not positive for input size {size}, ksize {ks}, stride {ss}, "
            f"pad {ps} and dilate {ds}"
        )
    return _im2col(x, ks, ss, ps, ds, outs, pad_value)


def _im2col(
    x: Any,
    ks: tuple[int, ...],
    ss: tuple[int, ...],
    ps: tuple[int, ...],
    ds: tuple[int, ...],
    outs: tuple[int, ...],
    pad_value: Any = 0,
) -> Any:
    """:func:`im2col_array` on validated per-axis tuples and output sizes."""
    nd = len(ks)
    size = x.shape[2:]
    xp = backend.get_array_module(x)
    # Pad only as far as the windows reach (with cover_all that can be past `pad`).
    after = tuple(max(_span(o, k, s, d) - p - n, 0) for o, k, s, d, p, n in zip(outs, ks, ss, ds, ps, size))
    if any(ps) or any(after):
        padded = xp.full(x.shape[:2] + tuple(p + n + a for p, n, a in zip(ps, size, after)), pad_value, x.dtype)
        padded[(slice(None), slice(None)) + tuple(slice(p, p + n) for p, n in zip(ps, size))] = x
    else:
        padded = x
    st = padded.strides
    shape = padded.shape[:2] + ks + outs
    strides = st[:2] + tuple(st[2 + i] * ds[i] for i in range(nd)) + tuple(st[2 + i] * ss[i] for i in range(nd))
    if xp.__name__ == "numpy":
        return xp.lib.stride_tricks.as_strided(padded, shape, strides, writeable=False)
    return xp.lib.stride_tricks.as_strided(padded, shape, strides)


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
    size = _expand(out_size, nd, "out_size", where)
    ss = _expand(stride, nd, "stride", where)
    ps = _expand(pad, nd, "pad", where)
    ds = _expand(dilate, nd, "dilate", where)
    _check_positive(ss, "stride", where)
    _check_positive(ds, "dilate", where)
    _check_positive(ps, "pad", where, allow_zero=True)
    return _col2im(col, ss, ps, size, ds)


def _col2im(col: Any, ss: tuple[int, ...], ps: tuple[int, ...], size: tuple[int, ...], ds: tuple[int, ...]) -> Any:
    """:func:`col2im_array` on validated per-axis tuples."""
    nd = len(ss)
    ks = col.shape[2 : 2 + nd]
    outs = col.shape[2 + nd :]
    xp = backend.get_array_module(col)
    padded_size = tuple(max(_span(o, k, s, d), p + n) for o, k, s, d, p, n in zip(outs, ks, ss, ds, ps, size))
    img = xp.zeros(col.shape[:2] + padded_size, col.dtype)
    lead = (slice(None), slice(None))
    # One strided add per kernel element: the windows of one kernel element never overlap.
    for k in itertools.product(*(range(n) for n in ks)):
        target = tuple(slice(ki * d, ki * d + (o - 1) * s + 1, s) for ki, d, o, s in zip(k, ds, outs, ss))
        img[lead + target] += col[lead + k]
    return img[lead + tuple(slice(p, p + n) for p, n in zip(ps, size))]
