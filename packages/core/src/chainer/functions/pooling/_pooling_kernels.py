"""Window sweeps shared by the pooling functions (N spatial axes, NumPy or CuPy).

A pooling window sweep is described by a :class:`Geometry`. Every kernel loops over the
``prod(ksize)`` kernel offsets only; each step is one vectorised operation on a strided
view covering the whole batch (no loop over pixels or batch items).

Two pairs of linear maps, each the adjoint of the other, carry the gradients:

* :class:`WindowSum` / :class:`WindowSpread` -- ``y[o] = w[o] * sum_{k} x[o s + k - p]``
  and its transpose (average pooling, unpooling);
* :class:`IndexGather` / :class:`IndexScatter` -- ``y[o] = x[o s + idx[o] - p]`` for one
  chosen offset per window and its transpose (max pooling backward, upsampling).

Because each node's backward is its partner, derivatives of any order come free.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy

from chainer import backend, function_node
from chainer.backends import cpu_kernels, cuda, intel64
from chainer.functions import _gpu_kernels
from chainer.functions.connection import _conv_kernels as K

_ALL = (slice(None), slice(None))


class Geometry:
    """Window sweep: ``ksize``, ``stride`` and ``pad`` per axis, between an image of
    spatial size ``in_size`` and an output of size ``outsize``."""

    __slots__ = ("ksize", "stride", "pad", "in_size", "outsize", "after")

    def __init__(
        self,
        ksize: Sequence[int],
        stride: Sequence[int],
        pad: Sequence[int],
        in_size: Sequence[int],
        outsize: Sequence[int],
    ) -> None:
        self.ksize = tuple(ksize)
        self.stride = tuple(stride)
        self.pad = tuple(pad)
        self.in_size = tuple(in_size)
        self.outsize = tuple(outsize)
        self.after = tuple(
            K.end_padding(n, o, k, s, p, 1)
            for n, o, k, s, p in zip(self.in_size, self.outsize, self.ksize, self.stride, self.pad)
        )

    @classmethod
    def from_input(
        cls,
        in_size: Sequence[int],
        ksize: Sequence[int],
        stride: Sequence[int],
        pad: Sequence[int],
        cover_all: bool,
    ) -> Geometry:
        outsize = tuple(K.conv_outsize(n, k, s, p, 1, cover_all) for n, k, s, p in zip(in_size, ksize, stride, pad))
        return cls(ksize, stride, pad, in_size, outsize)

    @property
    def padded_size(self) -> tuple[int, ...]:
        return tuple(p + n + a for p, n, a in zip(self.pad, self.in_size, self.after))

    def offsets(self) -> list[tuple[int, ...]]:
        return list(itertools.product(*(range(k) for k in self.ksize)))

    def window(self, offset: Sequence[int]) -> tuple[slice, ...]:
        """Slices of the padded image read by kernel ``offset`` over all outputs."""
        return _ALL + tuple(slice(j, j + s * (o - 1) + 1, s) for j, s, o in zip(offset, self.stride, self.outsize))

    def crop(self) -> tuple[slice, ...]:
        return _ALL + tuple(slice(p, p + n) for p, n in zip(self.pad, self.in_size))

    def overlapping(self) -> bool:
        return any(s < k for s, k in zip(self.stride, self.ksize))

    def valid_counts(self) -> Any:
        """Number of non-padding elements in each window, shape ``outsize`` (NumPy)."""
        counts = numpy.ones((), numpy.int64)
        for n, o, k, s, p in zip(self.in_size, self.outsize, self.ksize, self.stride, self.pad):
            start = numpy.arange(o) * s - p
            axis = numpy.clip(start + k, 0, n) - numpy.clip(start, 0, n)
            counts = numpy.multiply.outer(counts, axis)
        return counts


def pad(x: Any, geometry: Geometry, value: float = 0) -> Any:
    return K.pad_spatial(x, geometry.pad, geometry.after, value)


def unpad(img: Any, geometry: Geometry) -> Any:
    if not any(geometry.pad) and not any(geometry.after):
        return img
    xp = backend.get_array_module(img)
    return xp.ascontiguousarray(img[geometry.crop()])


def window_sum(x: Any, geometry: Geometry) -> Any:
    """``y[o] = sum over the window of o`` (zero padding), shape ``(N, C, *outsize)``."""
    xpad = pad(x, geometry)
    offsets = geometry.offsets()
    y = xpad[geometry.window(offsets[0])].copy()
    for offset in offsets[1:]:
        y += xpad[geometry.window(offset)]
    return y


def window_spread(y: Any, geometry: Geometry) -> Any:
    """Adjoint of :func:`window_sum`: add each ``y[o]`` to every element of its window."""
    xp = backend.get_array_module(y)
    img = xp.zeros(y.shape[:2] + geometry.padded_size, y.dtype)
    for offset in geometry.offsets():
        img[geometry.window(offset)] += y
    return unpad(img, geometry)


# CUDA kernels for the index sweeps of max pooling, one launch each instead of several
# per kernel offset. They see every window sweep as three-dimensional (a missing leading
# axis has size 1, window 1, stride 1, no padding); ``i`` is the flat element index.
_GPU_SIZES = (
    "int32 d, int32 h, int32 w, int32 od, int32 oh, int32 ow, int32 kd, int32 kh, int32 kw, "
    "int32 sd, int32 sh, int32 sw, int32 pd, int32 ph, int32 pw"
)
_GPU_OUTPUT_POSITION = """
    const ptrdiff_t ox = i % ow, oy = (i / ow) % oh, oz = (i / ((ptrdiff_t)ow * oh)) % od;
    const ptrdiff_t image = i / ((ptrdiff_t)ow * oh * od);
    const ptrdiff_t z0 = oz * sd - pd, y0 = oy * sh - ph, x0 = ox * sw - pw;
    #define CHAINER_INSIDE(z, y, x) ((z) >= 0 && (z) < d && (y) >= 0 && (y) < h && (x) >= 0 && (x) < w)
    #define CHAINER_AT(z, y, x) (((image * d + (z)) * h + (y)) * w + (x))
"""
# First maximum (strictly greater moves it); a NaN makes the maximum NaN, as
# numpy.maximum does, and keeps the index found before it.
_GPU_MAX = (
    _GPU_OUTPUT_POSITION
    + """
    T best = neg_inf;
    int best_t = 0, t = 0;
    for (int kz = 0; kz < kd; ++kz)
      for (int ky = 0; ky < kh; ++ky)
        for (int kx = 0; kx < kw; ++kx, ++t) {
          const ptrdiff_t zz = z0 + kz, yy = y0 + ky, xx = x0 + kx;
          const T v = CHAINER_INSIDE(zz, yy, xx) ? x[CHAINER_AT(zz, yy, xx)] : neg_inf;
          if (t == 0 || v > best) { best = v; best_t = t; }
          else if (v != v) { best = v; }
        }
    y = best;
    index = best_t;
"""
)
_GPU_GATHER = (
    _GPU_OUTPUT_POSITION
    + """
    const int t = index;
    const ptrdiff_t zz = z0 + t / (kh * kw), yy = y0 + (t / kw) % kh, xx = x0 + t % kw;
    y = CHAINER_INSIDE(zz, yy, xx) ? x[CHAINER_AT(zz, yy, xx)] : (T)0;
"""
)
# The adjoint of the gather, as a gather over the image (no atomics, deterministic):
# each element sums the values of the windows holding it whose index names it (in the
# compute type C of _gpu_kernels.float_kernel).
_GPU_SCATTER = """
    const ptrdiff_t xx = i % w + pw, yy = (i / w) % h + ph, zz = (i / ((ptrdiff_t)w * h)) % d + pd;
    const ptrdiff_t image = i / ((ptrdiff_t)w * h * d);
    #define CHAINER_FIRST(a, k, s) ((a) - (k) + 1 > 0 ? ((a) - (k) + (s)) / (s) : 0)
    #define CHAINER_LAST(a, s, o) ((a) / (s) < (o) - 1 ? (a) / (s) : (o) - 1)
    C sum = 0;
    for (ptrdiff_t oz = CHAINER_FIRST(zz, kd, sd); oz <= CHAINER_LAST(zz, sd, od); ++oz)
      for (ptrdiff_t oy = CHAINER_FIRST(yy, kh, sh); oy <= CHAINER_LAST(yy, sh, oh); ++oy)
        for (ptrdiff_t ox = CHAINER_FIRST(xx, kw, sw); ox <= CHAINER_LAST(xx, sw, ow); ++ox) {
          const ptrdiff_t o = ((image * od + oz) * oh + oy) * ow + ox;
          const int t = ((zz - oz * sd) * kh + (yy - oy * sh)) * kw + (xx - ox * sw);
          if (index[o] == t) sum += (C)values[o];
        }
    img = (T)sum;
"""


def _gpu_sizes(geometry: Geometry) -> tuple[int, ...]:
    g = geometry
    return _gpu_kernels.sizes_3d((g.in_size, 1), (g.outsize, 1), (g.ksize, 1), (g.stride, 1), (g.pad, 0))


def _flat_geometry(geometry: Geometry) -> tuple[int, ...]:
    """``kh, kw, sy, sx, ph, pw``: the geometry as the 2-D compiled kernels take it."""
    return geometry.ksize + geometry.stride + geometry.pad


def max_with_index(x: Any, geometry: Geometry) -> tuple[Any, Any]:
    """Maximum over each window (padding is ``-inf``) and the flat kernel offset of the
    first maximum, as ``(y, indexes)``."""
    xp = backend.get_array_module(x)
    offsets = geometry.offsets()
    index_dtype = numpy.int8 if len(offsets) <= 127 else numpy.int32
    if _gpu_kernels.handles(xp, len(geometry.ksize)):
        y = xp.empty(x.shape[:2] + geometry.outsize, x.dtype)
        indexes = xp.empty(y.shape, index_dtype)
        kernel = cuda.elementwise(f"raw T x, T neg_inf, {_GPU_SIZES}", "T y, I index", _GPU_MAX, "chainer_max_pool")
        kernel(xp.ascontiguousarray(x), -numpy.inf, *_gpu_sizes(geometry), y, indexes)
        return y, indexes
    if xp is numpy and (found := intel64.run("max_pooling_forward", x, geometry)) is not None:
        return found
    if xp is numpy and len(geometry.ksize) == 2:
        compiled = cpu_kernels.get("max_pooling_2d_forward")
        if compiled is not None:
            y = numpy.empty(x.shape[:2] + geometry.outsize, x.dtype)
            indexes = numpy.empty(y.shape, index_dtype)
            if compiled(numpy.ascontiguousarray(x), *_flat_geometry(geometry), y, indexes):
                return y, indexes
    xpad = pad(x, geometry, -numpy.inf)
    y = xpad[geometry.window(offsets[0])].copy()
    indexes = xp.zeros(y.shape, index_dtype)
    better = xp.empty(y.shape, numpy.bool_)
    step = xp.empty(y.shape, index_dtype)
    for t, offset in enumerate(offsets[1:], 1):
        v = xpad[geometry.window(offset)]
        xp.greater(v, y, out=better)
        xp.maximum(y, v, out=y)
        # indexes += better * (t - indexes), i.e. where(better, t, indexes): masked
        # assignment (copyto/putmask with a mask) is several times slower on CPU.
        xp.subtract(index_dtype(t), indexes, out=step)
        step *= better
        indexes += step
    return y, indexes


def _tiles_exactly(geometry: Geometry) -> bool:
    """Whether the windows partition the padded image (every element in one window)."""
    return all(
        k == s and k * o == n
        for k, s, o, n in zip(geometry.ksize, geometry.stride, geometry.outsize, geometry.padded_size)
    )


def index_scatter(values: Any, indexes: Any, geometry: Geometry) -> Any:
    """``img[o s + offset(indexes[o]) - p] += values[o]``; returns ``(N, C, *in_size)``."""
    xp = backend.get_array_module(values)
    if _gpu_kernels.handles(xp, len(geometry.ksize)):
        img = xp.empty(values.shape[:2] + geometry.in_size, values.dtype)
        kernel = _gpu_kernels.float_kernel(
            "index_scatter", f"raw T values, raw I index, {_GPU_SIZES}", "T img", _GPU_SCATTER, values.dtype
        )
        kernel(xp.ascontiguousarray(values), xp.ascontiguousarray(indexes), *_gpu_sizes(geometry), img)
        return img
    if xp is numpy and (img := intel64.run("max_pooling_backward", values, indexes, geometry)) is not None:
        return img
    if xp is numpy and len(geometry.ksize) == 2:
        compiled = cpu_kernels.get("max_pooling_2d_backward")
        if compiled is not None:
            img = numpy.empty(values.shape[:2] + geometry.in_size, values.dtype)
            contiguous = numpy.ascontiguousarray
            if compiled(contiguous(values), contiguous(indexes), *_flat_geometry(geometry), img):
                return img
    shape = values.shape[:2] + geometry.padded_size
    img = xp.empty(shape, values.dtype) if _tiles_exactly(geometry) else xp.zeros(shape, values.dtype)
    overlapping = geometry.overlapping()
    hit = xp.empty(indexes.shape, numpy.bool_)
    for t, offset in enumerate(geometry.offsets()):
        xp.equal(indexes, t, out=hit)
        window = img[geometry.window(offset)]
        if overlapping:
            window += values * hit
        else:
            # Windows are disjoint: each element is written by one offset at most.
            xp.multiply(values, hit, out=window)
    return unpad(img, geometry)


def index_gather(x: Any, indexes: Any, geometry: Geometry) -> Any:
    """``y[o] = x[o s + offset(indexes[o]) - p]`` (zero where that is padding)."""
    xp = backend.get_array_module(x)
    if _gpu_kernels.handles(xp, len(geometry.ksize)):
        kernel = cuda.elementwise(f"raw T x, I index, {_GPU_SIZES}", "T y", _GPU_GATHER, "chainer_index_gather")
        y = xp.empty(indexes.shape, x.dtype)
        kernel(xp.ascontiguousarray(x), indexes, *_gpu_sizes(geometry), y)
        return y
    xpad = pad(x, geometry)
    y = xp.zeros(indexes.shape, x.dtype)
    for t, offset in enumerate(geometry.offsets()):
        y += xpad[geometry.window(offset)] * (indexes == t)
    return y


class WindowSum(function_node.FunctionNode):
    """``y[o] = weight[o] * sum_{window(o)} x`` (``weight`` a scalar or an array
    broadcastable to the output)."""

    def __init__(self, geometry: Geometry, weight: Any = 1, label: str = "WindowSum") -> None:
        self.geometry = geometry
        self.weight = weight
        self._label = label

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        y = window_sum(x, self.geometry)
        if not (isinstance(self.weight, (int, float)) and self.weight == 1):
            y *= self.weight
        return (y.astype(x.dtype, copy=False),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return WindowSpread(self.geometry, self.weight, f"{self._label}Grad").apply(grad_outputs)


class WindowSpread(function_node.FunctionNode):
    """Adjoint of :class:`WindowSum`: ``x[i] = sum_{o: i in window(o)} weight[o] * y[o]``."""

    def __init__(self, geometry: Geometry, weight: Any = 1, label: str = "WindowSpread") -> None:
        self.geometry = geometry
        self.weight = weight
        self._label = label

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (y,) = inputs
        if not (isinstance(self.weight, (int, float)) and self.weight == 1):
            y = (y * self.weight).astype(y.dtype, copy=False)
        return (window_spread(y, self.geometry),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return WindowSum(self.geometry, self.weight, f"{self._label}Grad").apply(grad_outputs)


class IndexGather(function_node.FunctionNode):
    """``y[o] = x[window(o)][indexes[o]]``: pick one element per window."""

    def __init__(self, indexes: Any, geometry: Geometry, label: str = "IndexGather") -> None:
        self.indexes = indexes
        self.geometry = geometry
        self._label = label

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (index_gather(inputs[0], self.indexes, self.geometry),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return IndexScatter(self.indexes, self.geometry, f"{self._label}Grad").apply(grad_outputs)


class IndexScatter(function_node.FunctionNode):
    """Adjoint of :class:`IndexGather`: put each ``y[o]`` at the chosen element of its
    window (overlapping windows add up), zeros elsewhere."""

    def __init__(self, indexes: Any, geometry: Geometry, label: str = "IndexScatter") -> None:
        self.indexes = indexes
        self.geometry = geometry
        self._label = label

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (index_scatter(inputs[0], self.indexes, self.geometry),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return IndexGather(self.indexes, self.geometry, f"{self._label}Grad").apply(grad_outputs)


def pooling_args(
    ndim: int, ksize: Any, stride: Any, pad: Any, where: str
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Validate ``ksize``/``stride``/``pad`` (``stride=None`` means ``ksize``)."""
    k = K.as_tuple(ksize, ndim, "ksize", where)
    s = k if stride is None else K.as_tuple(stride, ndim, "stride", where)
    p = K.as_tuple(pad, ndim, "pad", where, minimum=0)
    return k, s, p


def check_outsize(geometry: Geometry, label: str) -> None:
    if any(o <= 0 for o in geometry.outsize):
        raise ValueError(
            f"{label}: the output would have size {geometry.outsize} for an input of spatial size "
            f"{geometry.in_size} (ksize={geometry.ksize}, stride={geometry.stride}, pad={geometry.pad})"
        )
