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


def max_with_index(x: Any, geometry: Geometry) -> tuple[Any, Any]:
    """Maximum over each window (padding is ``-inf``) and the flat kernel offset of the
    first maximum, as ``(y, indexes)``."""
    xp = backend.get_array_module(x)
    xpad = pad(x, geometry, -numpy.inf)
    offsets = geometry.offsets()
    y = xpad[geometry.window(offsets[0])].copy()
    index_dtype = numpy.int8 if len(offsets) <= 127 else numpy.int32
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
