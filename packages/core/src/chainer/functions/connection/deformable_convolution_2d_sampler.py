"""Deformable convolution (Dai et al., 2017) with given sampling offsets."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer import backend, variable
from chainer.functions.array import get_item, reshape, transpose
from chainer.functions.connection import _conv_kernels as K
from chainer.functions.math import matmul
from chainer.utils import type_check


def _check_types(stride: tuple[int, ...], pad: tuple[int, ...], has_bias: bool) -> Any:
    def check(in_types: Any) -> None:
        type_check._argname(in_types, ("x", "offset", "W", "b")[: 3 + has_bias])
        x_type, offset_type, w_type = in_types[:3]
        type_check.expect(
            x_type.dtype.kind == "f",
            offset_type.dtype == x_type.dtype,
            w_type.dtype == x_type.dtype,
            x_type.ndim == 4,
            offset_type.ndim == 4,
            w_type.ndim == 4,
            x_type.shape[1] == w_type.shape[1],
            offset_type.shape[0] == x_type.shape[0],
            offset_type.shape[1] == 2 * w_type.shape[2] * w_type.shape[3],
        )
        h, w = type_check.eval(x_type.shape)[2:]
        kh, kw = type_check.eval(w_type.shape)[2:]
        out_h = type_check.make_variable(K.conv_outsize(h, kh, stride[0], pad[0], 1, False), "out_h")
        out_w = type_check.make_variable(K.conv_outsize(w, kw, stride[1], pad[1], 1, False), "out_w")
        type_check.expect(offset_type.shape[2] == out_h, offset_type.shape[3] == out_w)
        if has_bias:
            b_type = in_types[3]
            type_check.expect(b_type.dtype == x_type.dtype, b_type.ndim == 1, b_type.shape[0] == w_type.shape[0])

    return check


def deformable_convolution_2d_sampler(
    x: Any,
    offset: Any,
    W: Any,
    b: Any = None,
    stride: int | Sequence[int] = 1,
    pad: int | Sequence[int] = 0,
) -> variable.Variable:
    """Two-dimensional deformable convolution with the sampling offsets given.

    Like :func:`convolution_2d`, but kernel tap ``(p, q)`` of output ``(i, j)`` reads
    ``x`` at the fractional position ``(i sy - ph + p + Δy, j sx - pw + q + Δx)`` by
    bilinear interpolation (zero outside the image), where for ``k = p kw + q``
    ``Δx = offset[n, k, i, j]`` and ``Δy = offset[n, kh kw + k, i, j]``. Gradients flow
    to ``x``, ``offset``, ``W`` and ``b``.

    Args:
        x: Input ``(N, C, H, W)``.
        offset: Offsets ``(N, 2 kh kw, out_h, out_w)``: the x (width) offsets of every
            tap first, then the y (height) offsets.
        W: Kernel ``(O, C, kh, kw)``.
        b: Optional bias ``(O,)``.
        stride: ``s`` or ``(sy, sx)``.
        pad: ``p`` or ``(ph, pw)``.

    Returns:
        Output ``(N, O, out_h, out_w)`` with ``out_h = (H + 2 ph - kh) // sy + 1``.

    Example:
        >>> x = np.ones((1, 2, 4, 4), 'f'); W = np.ones((3, 2, 3, 3), 'f')
        >>> offset = np.zeros((1, 18, 2, 2), 'f')
        >>> F.deformable_convolution_2d_sampler(x, offset, W).shape
        (1, 3, 2, 2)
    """
    where = "chainer.functions.deformable_convolution_2d_sampler"
    s = K.as_tuple(stride, 2, "stride", where)
    p = K.as_tuple(pad, 2, "pad", where, minimum=0)
    args = (x, offset, W) if b is None else (x, offset, W, b)
    arrays = tuple(a.array if isinstance(a, variable.Variable) else a for a in args)
    type_check.run_check(_check_types(s, p, b is not None), arrays, "DeformableConvolution2DSampler")
    x, offset, W = variable.as_variable(x), variable.as_variable(offset), variable.as_variable(W)
    xp = backend.get_array_module(x.array)
    n, c, h, w = x.shape
    o, _, kh, kw = W.shape
    taps = kh * kw
    out_h, out_w = offset.shape[2:]
    dtype = x.dtype

    # Undeformed sampling grid of every tap: (taps, out_h, 1) rows and (taps, 1, out_w) columns.
    tap_y = xp.repeat(xp.arange(kh), kw).reshape(taps, 1, 1)
    tap_x = xp.tile(xp.arange(kw), kh).reshape(taps, 1, 1)
    grid_y = (tap_y + (xp.arange(out_h) * s[0] - p[0]).reshape(1, out_h, 1)).astype(dtype)
    grid_x = (tap_x + (xp.arange(out_w) * s[1] - p[1]).reshape(1, 1, out_w)).astype(dtype)
    pos_y = get_item.get_item(offset, (slice(None), slice(taps, None))) + grid_y
    pos_x = get_item.get_item(offset, (slice(None), slice(None, taps))) + grid_x
    y0 = xp.floor(pos_y.array)
    x0 = xp.floor(pos_x.array)
    frac_y = pos_y - y0
    frac_x = pos_x - x0

    # Bilinear interpolation as a weighted sum of four gathers from x (pixels, C).
    pixels = reshape.reshape(transpose.transpose(x, (0, 2, 3, 1)), (n * h * w, c))
    batch = xp.arange(n).reshape(n, 1, 1, 1)
    sampled = None
    for dy, weight_y in ((0, 1 - frac_y), (1, frac_y)):
        for dx, weight_x in ((0, 1 - frac_x), (1, frac_x)):
            yy = (y0 + dy).astype(xp.int64)
            xx = (x0 + dx).astype(xp.int64)
            inside = (yy >= 0) & (yy < h) & (xx >= 0) & (xx < w)
            index = (batch * h + xp.clip(yy, 0, h - 1)) * w + xp.clip(xx, 0, w - 1)
            weight = weight_y * weight_x * inside.astype(dtype)
            term = reshape.reshape(weight, weight.shape + (1,)) * get_item.get_item(pixels, index)
            sampled = term if sampled is None else sampled + term
    assert sampled is not None
    # (N, taps, out_h, out_w, C) -> (N out_h out_w, C taps) @ (C taps, O)
    cols = reshape.reshape(transpose.transpose(sampled, (0, 2, 3, 4, 1)), (n * out_h * out_w, c * taps))
    y = matmul.matmul(cols, reshape.reshape(W, (o, c * taps)), transb=True)
    y = transpose.transpose(reshape.reshape(y, (n, out_h, out_w, o)), (0, 3, 1, 2))
    if b is not None:
        y = y + reshape.reshape(b, (1, o, 1, 1))
    return y


__all__ = ["deformable_convolution_2d_sampler"]
