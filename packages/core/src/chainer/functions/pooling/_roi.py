"""Machinery shared by the region-of-interest (ROI) pooling and align functions.

Every ROI function is a sparse linear map of ``x`` (for the max variants, once the
winners are chosen): output ``(r, c, i, j)`` is a weighted sum of a few pixels of
``x[roi_index[r], c]``. The functions only compute *which* pixels and *what* weights,
vectorised over ROIs and bins; :class:`PixelGather` applies the map and
:class:`PixelScatter` (its transpose) carries the gradient back, each being the
other's backward, so derivatives of any order work.

Pixel indices address ``x`` viewed as ``(N * H * W, C)`` (channels last), so that a
spatial index shared by all channels costs one row gather.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy

from chainer import backend, function_node, variable
from chainer.functions.connection import _conv_kernels as K
from chainer.utils import type_check


def _pixels(x: Any) -> Any:
    n, c = x.shape[:2]
    return x.transpose(0, 2, 3, 1).reshape(-1, c)


def gather(x: Any, index: Any, weight: Any) -> Any:
    """``y[m, c] = sum_k weight[m, k(, c)] * pixels[index[m, k(, c)], c]`` as ``(M, C)``.

    ``index``/``weight`` are ``(M, K)`` (shared by the channels) or ``(M, K, C)``.
    """
    xp = backend.get_array_module(x)
    pixels = _pixels(x)
    c = pixels.shape[1]
    dtype = K.compute_dtype(x.dtype, weight.dtype)
    y = xp.zeros((index.shape[0], c), dtype)
    channels = xp.arange(c)
    for k in range(index.shape[1]):
        if index.ndim == 2:
            y += weight[:, k, None] * pixels[index[:, k]]
        else:
            y += weight[:, k] * pixels[index[:, k], channels]
    return y.astype(x.dtype, copy=False)


def scatter(g: Any, index: Any, weight: Any, x_shape: tuple[int, ...]) -> Any:
    """Transpose of :func:`gather`: ``g`` ``(M, C)`` summed back into an ``x``-shaped array."""
    xp = backend.get_array_module(g)
    n, c, h, w = x_shape
    total = n * h * w * c
    acc = xp.zeros(total, numpy.float64 if g.dtype == numpy.float64 or weight.dtype == numpy.float64 else numpy.float32)
    channels = xp.arange(c)
    for k in range(index.shape[1]):
        if index.ndim == 2:
            flat = index[:, k, None] * c + channels
            values = weight[:, k, None] * g
        else:
            flat = index[:, k] * c + channels
            values = weight[:, k] * g
        acc += xp.bincount(flat.ravel(), weights=values.ravel(), minlength=total)
    return xp.ascontiguousarray(acc.astype(g.dtype, copy=False).reshape(n, h, w, c).transpose(0, 3, 1, 2))


class PixelGather(function_node.FunctionNode):
    """``x (N, C, H, W)`` -> ``(R, C, out_h, out_w)`` by :func:`gather`."""

    def __init__(self, index: Any, weight: Any, out_shape: tuple[int, int, int], label: str) -> None:
        self.index = index
        self.weight = weight
        self.out_shape = out_shape
        self._label = label

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        self.x_shape = x.shape
        xp = backend.get_array_module(x)
        r, oh, ow = self.out_shape
        y = gather(x, self.index, self.weight).reshape(r, oh, ow, x.shape[1]).transpose(0, 3, 1, 2)
        return (xp.ascontiguousarray(y),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        node = PixelScatter(self.index, self.weight, self.x_shape, f"{self._label}Grad")
        return node.apply(grad_outputs)


class PixelScatter(function_node.FunctionNode):
    """Transpose of :class:`PixelGather`: ``(R, C, out_h, out_w)`` -> ``x``'s shape."""

    def __init__(self, index: Any, weight: Any, x_shape: tuple[int, ...], label: str) -> None:
        self.index = index
        self.weight = weight
        self.x_shape = x_shape
        self._label = label

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (gy,) = inputs
        self.out_shape = (gy.shape[0], gy.shape[2], gy.shape[3])
        g = gy.transpose(0, 2, 3, 1).reshape(-1, gy.shape[1])
        return (scatter(g, self.index, self.weight, self.x_shape),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        node = PixelGather(self.index, self.weight, self.out_shape, f"{self._label}Grad")
        return node.apply(grad_outputs)


def running_max(x: Any, index: Any, valid: Any) -> tuple[Any, Any, Any]:
    """Per channel, the candidate with the largest value among the valid ones.

    ``index``/``valid`` are ``(M, K)`` pixel candidates shared by the channels. Returns
    ``(value, winner_index, found)``, each ``(M, C)``; ``value`` is 0 where no
    candidate is valid.
    """
    xp = backend.get_array_module(x)
    pixels = _pixels(x)
    m, c = index.shape[0], pixels.shape[1]
    best = xp.full((m, c), -numpy.inf, x.dtype)
    winner = xp.zeros((m, c), index.dtype)
    for k in range(index.shape[1]):
        v = xp.where(valid[:, k, None], pixels[index[:, k]], -numpy.inf)
        better = v > best
        best = xp.where(better, v, best)
        winner = xp.where(better, index[:, k, None], winner)
    found = best > -numpy.inf
    return xp.where(found, best, 0), winner, found


# -- argument handling ------------------------------------------------------------------


def as_array(value: Any) -> Any:
    return value.array if isinstance(value, variable.Variable) else value


def outsize_pair(outsize: Any, where: str) -> tuple[int, int]:
    return K.as_tuple(outsize, 2, "outsize", where)  # type: ignore[return-value]


def check_scale(spatial_scale: Any, where: str) -> float:
    if isinstance(spatial_scale, bool) or not isinstance(spatial_scale, numbers.Real):
        raise TypeError(f"{where}: spatial_scale must be a number, got {spatial_scale!r}")
    if not spatial_scale > 0 or not math.isfinite(spatial_scale):
        raise ValueError(f"{where}: spatial_scale must be positive and finite, got {spatial_scale!r}")
    return float(spatial_scale)


def check_types(in_types: Any) -> None:
    """Type check of ``x (N, C, H, W)``, ``rois (R, 4)`` and ``roi_indices (R,)``."""
    type_check._argname(in_types, ("x", "rois", "roi_indices"))
    x_type, rois_type, indices_type = in_types
    type_check.expect(
        x_type.dtype.kind == "f",
        x_type.ndim == 4,
        rois_type.dtype.kind == "f",
        rois_type.ndim == 2,
        rois_type.shape[1] == 4,
        indices_type.dtype.kind == "i",
        indices_type.ndim == 1,
        rois_type.shape[0] == indices_type.shape[0],
    )


def check_roi_indices(x: Any, roi_indices: Any, label: str) -> None:
    """Every ``roi_indices`` entry names an image of the batch."""
    if roi_indices.size:
        xp = backend.get_array_module(roi_indices)
        low, high = int(xp.min(roi_indices)), int(xp.max(roi_indices))
        if low < 0 or high >= x.shape[0]:
            raise ValueError(f"{label}: roi_indices must lie in [0, {x.shape[0]}) (the batch), got [{low}, {high}]")


class ROINode(function_node.FunctionNode):
    """The base of the ROI pooling and align nodes: ``(x, rois, roi_indices)`` to
    ``(R, C, out_h, out_w)``, a gather of weighted pixels of ``x``.

    A subclass's :meth:`pixel_map` says, from the input arrays, which pixels feed every
    output and with what weights; :class:`PixelGather` and :class:`PixelScatter` do the
    rest. The gradient reaches ``x`` only (``rois`` and ``roi_indices`` are positions).
    """

    def check_type_forward(self, in_types: Any) -> None:
        check_types(in_types)

    def pixel_map(self, inputs: tuple[Any, ...]) -> tuple[Any, Any, tuple[int, int, int]]:
        """``(index, weight, (R, out_h, out_w))`` for :func:`gather` of ``inputs[0]``."""
        raise NotImplementedError(f"{type(self).__name__}.pixel_map: a ROI node says which pixels it reads")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        if len(inputs) == 3:
            check_roi_indices(x, inputs[2], self.label)
        self.index, self.weight, out_shape = self.pixel_map(inputs)
        self.x_shape = x.shape
        gather_node = PixelGather(self.index, self.weight, out_shape, self.label)
        return gather_node.forward((x,))

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gx = PixelScatter(self.index, self.weight, self.x_shape, f"{self.label}Grad").apply(grad_outputs)[0]
        return tuple(gx if i == 0 else None for i in indexes)


def scaled_boxes(rois: Any, scale: float, xp: Any) -> tuple[Any, Any, Any, Any]:
    """``(y_min, x_min, y_max, x_max)`` columns of ``rois`` times ``scale``, in float64."""
    r = xp.asarray(rois, numpy.float64) * scale
    return r[:, 0], r[:, 1], r[:, 2], r[:, 3]


def bin_ranges(start: Any, length: Any, bins: int, size: int, xp: Any) -> tuple[Any, Any]:
    """Integer pixel ranges ``[lo, hi)`` of ``bins`` equal bins over ``[start, start +
    length)`` per ROI, widened to whole pixels and clipped to ``[0, size]``: ``(R, bins)``."""
    edges = start[:, None] + xp.arange(bins + 1)[None, :] * (length / bins)[:, None]
    lo = xp.clip(xp.floor(edges[:, :-1]), 0, size).astype(numpy.int64)
    hi = xp.clip(xp.ceil(edges[:, 1:]), 0, size).astype(numpy.int64)
    return lo, hi


def bin_candidates(
    lo_y: Any, hi_y: Any, lo_x: Any, hi_x: Any, roi_indices: Any, h: int, w: int, xp: Any
) -> tuple[Any, Any]:
    """All pixels of every bin, padded to the largest bin: ``(index, valid)`` of shape
    ``(R * out_h * out_w, max_bin_h * max_bin_w)``."""
    r, oh = lo_y.shape
    ow = lo_x.shape[1]
    span_y = max(int((hi_y - lo_y).max()) if lo_y.size else 0, 1)
    span_x = max(int((hi_x - lo_x).max()) if lo_x.size else 0, 1)
    yy = lo_y[:, :, None, None, None] + xp.arange(span_y).reshape(1, 1, 1, span_y, 1)
    xx = lo_x[:, None, :, None, None] + xp.arange(span_x).reshape(1, 1, 1, 1, span_x)
    valid = (yy < hi_y[:, :, None, None, None]) & (xx < hi_x[:, None, :, None, None])
    base = xp.asarray(roi_indices, numpy.int64).reshape(r, 1, 1, 1, 1) * h
    index = (base + xp.minimum(yy, h - 1)) * w + xp.minimum(xx, w - 1)
    shape = (r * oh * ow, span_y * span_x)
    return xp.broadcast_to(index, (r, oh, ow, span_y, span_x)).reshape(shape), xp.broadcast_to(
        valid, (r, oh, ow, span_y, span_x)
    ).reshape(shape)


def sampling_grid(start: Any, length: Any, bins: int, ratio: int | None, xp: Any) -> tuple[Any, Any]:
    """Sample coordinates of RoIAlign along one axis: ``(R, bins, S)`` coordinates and
    the per-ROI number of samples per bin ``(R,)`` (``ceil(length / bins)`` if ``ratio`` is
    None); slots past a ROI's count are marked by a count smaller than ``S``."""
    bin_size = length / bins
    if ratio is None:
        counts = xp.maximum(xp.ceil(bin_size), 1).astype(numpy.int64)
    else:
        counts = xp.full(length.shape, ratio, numpy.int64)
    s = max(int(counts.max()) if counts.size else 1, 1)
    slot = xp.arange(s)[None, None, :]
    coords = (
        start[:, None, None]
        + xp.arange(bins)[None, :, None] * bin_size[:, None, None]
        + (slot + 0.5) * (bin_size / counts)[:, None, None]
    )
    return coords, counts


def bilinear_taps(coord: Any, size: int, xp: Any) -> tuple[Any, Any, Any, Any, Any]:
    """RoIAlign's bilinear interpolation along one axis: ``(low, high, w_low, w_high,
    inside)``. Samples further than one pixel outside the image are not ``inside``;
    the others are clamped to the border."""
    inside = (coord >= -1.0) & (coord <= size)
    c = xp.maximum(coord, 0.0)
    low = xp.floor(c).astype(numpy.int64)
    at_end = low >= size - 1
    low = xp.where(at_end, size - 1, low)
    high = xp.where(at_end, size - 1, low + 1)
    c = xp.where(at_end, low.astype(c.dtype), c)
    w_high = c - low
    return low, high, 1.0 - w_high, w_high, inside


def align_samples(
    rois: Any,
    roi_indices: Any,
    x_shape: tuple[int, ...],
    outsize: tuple[int, int],
    scale: float,
    sampling_ratio: tuple[int, int] | None,
    xp: Any,
) -> tuple[Any, Any, Any, Any]:
    """Bilinear taps of every RoIAlign sample, as ``(index, weight, valid, counts)``:
    ``index`` and ``weight`` are ``(M, S, 4)`` with ``M = R * out_h * out_w`` (weights
    are zero for invalid samples), ``valid`` is ``(M, S)`` and ``counts`` ``(M,)`` is the
    number of sample slots of each bin (the divisor of the average)."""
    _, _, h, w = x_shape
    oh, ow = outsize
    y1, x1, y2, x2 = scaled_boxes(rois, scale, xp)
    height = xp.maximum(y2 - y1, 1.0)
    width = xp.maximum(x2 - x1, 1.0)
    ratio_y, ratio_x = (None, None) if sampling_ratio is None else sampling_ratio
    cy, ny = sampling_grid(y1, height, oh, ratio_y, xp)  # (R, oh, Sy)
    cx, nx = sampling_grid(x1, width, ow, ratio_x, xp)  # (R, ow, Sx)
    r, sy, sx = cy.shape[0], cy.shape[2], cx.shape[2]
    ly, hy_, wly, why, in_y = bilinear_taps(cy, h, xp)
    lx, hx_, wlx, whx, in_x = bilinear_taps(cx, w, xp)
    ok_y = in_y & (xp.arange(sy)[None, None, :] < ny[:, None, None])
    ok_x = in_x & (xp.arange(sx)[None, None, :] < nx[:, None, None])

    # Broadcast to (R, oh, ow, Sy, Sx): y terms vary over (R, oh, Sy), x terms over (R, ow, Sx).
    def ys(a: Any) -> Any:
        return a[:, :, None, :, None]

    def xs(a: Any) -> Any:
        return a[:, None, :, None, :]

    base = xp.asarray(roi_indices, numpy.int64).reshape(r, 1, 1, 1, 1) * h
    index = []
    weight = []
    for row, wy in ((ly, wly), (hy_, why)):
        for col, wx in ((lx, wlx), (hx_, whx)):
            index.append((base + ys(row)) * w + xs(col))
            weight.append(ys(wy) * xs(wx))
    full = (r, oh, ow, sy, sx)
    m = r * oh * ow
    index_a = xp.stack([xp.broadcast_to(i, full) for i in index], axis=-1).reshape(m, sy * sx, 4)
    weight_a = xp.stack([xp.broadcast_to(v, full) for v in weight], axis=-1).reshape(m, sy * sx, 4)
    valid = xp.broadcast_to(ys(ok_y) & xs(ok_x), full).reshape(m, sy * sx)
    counts = xp.broadcast_to((ny[:, None] * nx[:, None]).reshape(r, 1, 1), (r, oh, ow)).reshape(m)
    return index_a, weight_a * valid[..., None], valid, counts


def sampling_pair(sampling_ratio: Any, where: str) -> tuple[int | None, int | None] | None:
    """``None``, or a pair whose entries are a positive int or ``None`` (the default,
    ``ceil(bin size)``, along that axis alone)."""
    if sampling_ratio is None:
        return None
    if isinstance(sampling_ratio, (tuple, list)) and len(sampling_ratio) == 2 and None in sampling_ratio:
        return tuple(  # type: ignore[return-value]
            None if r is None else K.as_tuple(r, 1, "sampling_ratio", where)[0] for r in sampling_ratio
        )
    return K.as_tuple(sampling_ratio, 2, "sampling_ratio", where)  # type: ignore[return-value]


class ROIAlignNode(ROINode):
    """The base of the RoIAlign nodes: bilinear samples of every bin (see
    :func:`align_samples`), reduced by the subclass's :meth:`pixel_map`."""

    def __init__(self, outsize: Any, spatial_scale: Any, sampling_ratio: Any = None) -> None:
        where = f"chainer.functions.{self._function_name}"
        self.outsize = outsize_pair(outsize, where)
        self.spatial_scale = check_scale(spatial_scale, where)
        self.sampling_ratio = sampling_pair(sampling_ratio, where)

    _function_name = ""

    def samples(self, x: Any, rois: Any, roi_indices: Any) -> tuple[Any, Any, Any, Any]:
        """:func:`align_samples` of the inputs with this node's geometry."""
        xp = backend.get_array_module(x)
        return align_samples(rois, roi_indices, x.shape, self.outsize, self.spatial_scale, self.sampling_ratio, xp)
