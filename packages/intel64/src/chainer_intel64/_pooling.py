"""Kernels of max and average pooling on oneDNN (plain layout, 1 to 3 spatial axes).

The geometry comes from chainer-core's pooling nodes
(``chainer.functions.pooling._pooling_kernels.Geometry``: ``ksize``, ``stride``, ``pad``,
the end padding ``after`` and ``outsize``). Max pooling's window offsets are core's
``indexes`` (int8, the offset ``dy * kw + dx`` of each window's first maximum), so a
forward on one code and a backward on the other agree.
"""

from __future__ import annotations

from typing import Any

import numpy

from chainer.backends import cpu_kernels
from chainer_intel64 import _connection, _library

_MAX, _AVERAGE_WITH_PADDING, _AVERAGE_INSIDE = 0, 1, 2
# Windows of up to 127 elements: their offsets fit core's int8 indexes.
_MAX_WINDOW = 127


def _wanted(always: bool, slot: str, x: Any) -> bool:
    """'auto' leaves max pooling to chainer-cpu-kernels when it serves the slot: its loops
    measured as fast as oneDNN's forward and faster than its backward (benchmarks/RESULTS.md)."""
    return _connection._float32(x) and 3 <= x.ndim <= 5 and (always or cpu_kernels.get(slot) is None)


def _geometry(geometry: Any) -> tuple[tuple[int, ...], ...]:
    return tuple(geometry.ksize), tuple(geometry.stride), tuple(geometry.pad), tuple(geometry.after)


def max_pooling_forward(always: bool, x: Any, geometry: Any) -> tuple[Any, Any] | None:
    module = _library.dnnl()
    if module is None or not _wanted(always, "max_pooling_2d_forward", x):
        return None
    if numpy.prod(geometry.ksize) > _MAX_WINDOW:
        return None
    y = numpy.empty(x.shape[:2] + tuple(geometry.outsize), numpy.float32)
    indexes = numpy.empty(y.shape, numpy.int8)
    return (y, indexes) if module.pooling_forward(_connection._c(x), y, indexes, _MAX, *_geometry(geometry)) else None


def max_pooling_backward(always: bool, gy: Any, indexes: Any, geometry: Any) -> Any:
    # oneDNN trusts its workspace: offsets outside the window, or naming padding, are
    # declined here (only core's code defines what they do; upsampling_2d takes the
    # indexes from its caller).
    module = _library.dnnl()
    if module is None or not _wanted(always, "max_pooling_2d_backward", gy) or indexes.dtype.kind not in "iu":
        return None
    if any(geometry.pad) or any(geometry.after) or indexes.shape != gy.shape:
        return None
    if numpy.prod(geometry.ksize) > _MAX_WINDOW:
        return None
    if indexes.min() < 0 or indexes.max() >= numpy.prod(geometry.ksize):
        return None
    # Offsets below 128 (checked above): the int32 ones of return_indices fit in a byte.
    offsets = indexes if indexes.dtype == numpy.int8 else indexes.astype(numpy.int8)
    gx = numpy.empty(gy.shape[:2] + tuple(geometry.in_size), numpy.float32)
    contiguous = _connection._c
    done = module.pooling_backward(contiguous(gy), gx, contiguous(offsets), _MAX, *_geometry(geometry))
    return gx if done else None


def average_pooling_forward(always: bool, x: Any, geometry: Any, inside_only: bool) -> Any:
    module = _library.dnnl()
    if module is None or not (_connection._float32(x) and 3 <= x.ndim <= 5):
        return None
    y = numpy.empty(x.shape[:2] + tuple(geometry.outsize), numpy.float32)
    kind = _AVERAGE_INSIDE if inside_only else _AVERAGE_WITH_PADDING
    return y if module.pooling_forward(_connection._c(x), y, None, kind, *_geometry(geometry)) else None


def average_pooling_backward(always: bool, gy: Any, geometry: Any, inside_only: bool) -> Any:
    module = _library.dnnl()
    if module is None or not (_connection._float32(gy) and 3 <= gy.ndim <= 5):
        return None
    gx = numpy.empty(gy.shape[:2] + tuple(geometry.in_size), numpy.float32)
    kind = _AVERAGE_INSIDE if inside_only else _AVERAGE_WITH_PADDING
    return gx if module.pooling_backward(_connection._c(gy), gx, None, kind, *_geometry(geometry)) else None


def relu_forward(always: bool, x: Any) -> Any:
    module = _library.dnnl()
    if module is None or not _connection._float32(x):
        return None
    y = numpy.empty(x.shape, numpy.float32)
    return y if module.relu_forward(_connection._c(x), y) else None


def relu_backward(always: bool, y: Any, gy: Any) -> Any:
    """'auto' leaves it to chainer-cpu-kernels' loop when installed (faster than oneDNN's)."""
    module = _library.dnnl()
    if module is None or not _connection._float32(y, gy) or y.shape != gy.shape:
        return None
    if not always and cpu_kernels.get("relu_backward") is not None:
        return None
    gx = numpy.empty(y.shape, numpy.float32)
    return gx if module.relu_backward(_connection._c(y), _connection._c(gy), gx) else None
