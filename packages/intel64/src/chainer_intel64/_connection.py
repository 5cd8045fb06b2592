"""Kernels of the connection functions: convolutions (forward, transposed, kernel
gradient) and linear layers, on oneDNN.

Each takes what core's NumPy code takes (see :data:`chainer.backends.intel64.SLOTS`),
declines with ``None`` what oneDNN does not compute here (another dtype than float32,
empty arrays, a geometry oneDNN refuses), allocates the result and fills it in C.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

from chainer_intel64 import _library

_F32 = numpy.dtype(numpy.float32)


def _float32(*arrays: Any) -> bool:
    """All arrays (``None`` skipped) are non-empty float32 NumPy arrays."""
    return all(a is None or (type(a) is numpy.ndarray and a.dtype == _F32 and a.size > 0) for a in arrays)


def _c(array: Any) -> Any:
    return array if array is None or array.flags.c_contiguous else numpy.ascontiguousarray(array)


def _pad_after(
    in_size: Sequence[int],
    ksize: Sequence[int],
    stride: Sequence[int],
    pad: Sequence[int],
    dilate: Sequence[int],
    outsize: Sequence[int],
) -> tuple[int, ...] | None:
    """The padding after each spatial axis that gives exactly ``outsize`` windows (the
    ``cover_all`` or explicit ``outsize`` of core's nodes imply more or less than
    ``pad``); ``None`` when the output would need a negative one (it ignores the end of
    the input), which oneDNN does not take."""
    after = []
    for n, k, s, p, d, o in zip(in_size, ksize, stride, pad, dilate, outsize):
        needed = (o - 1) * s + (k - 1) * d + 1 - n - p
        if needed < 0:
            # Any padding in (needed - s, needed] gives the same windows.
            if needed + s - 1 < 0:
                return None
            needed = 0
        after.append(needed)
    return tuple(after)


def _spatial(x: Any, always: bool) -> bool:
    """oneDNN convolves over 1 to 3 spatial axes; 'auto' takes the 2-D ones, measured
    faster than the im2col GEMMs of core (benchmarks/RESULTS.md)."""
    return 3 <= x.ndim <= 5 if always else x.ndim == 4


def convolution_forward(
    always: bool,
    x: Any,
    W: Any,
    b: Any,
    stride: Sequence[int],
    pad: Sequence[int],
    dilate: Sequence[int],
    groups: int,
    outsize: Sequence[int],
) -> Any:
    if not (_float32(x, W, b) and _spatial(x, always)):
        return None
    module = _library.dnnl()
    pad_r = _pad_after(x.shape[2:], W.shape[2:], stride, pad, dilate, outsize)
    if module is None or pad_r is None:
        return None
    y = numpy.empty((x.shape[0], W.shape[0]) + tuple(outsize), _F32)
    done = module.conv_forward(_c(x), _c(W), _c(b), y, tuple(stride), tuple(dilate), tuple(pad), pad_r, groups)
    return y if done else None


def deconvolution_forward(
    always: bool,
    x: Any,
    W: Any,
    b: Any,
    stride: Sequence[int],
    pad: Sequence[int],
    dilate: Sequence[int],
    groups: int,
    outsize: Sequence[int],
) -> Any:
    # The transposed convolution of x is the input gradient of the convolution whose
    # image has size `outsize` and whose output is x, with the same kernel.
    if not (_float32(x, W, b) and _spatial(x, always)):
        return None
    module = _library.dnnl()
    pad_r = _pad_after(outsize, W.shape[2:], stride, pad, dilate, x.shape[2:])
    if module is None or pad_r is None:
        return None
    y = numpy.empty((x.shape[0], W.shape[1] * groups) + tuple(outsize), _F32)
    if not module.conv_backward_data(_c(x), _c(W), y, tuple(stride), tuple(dilate), tuple(pad), pad_r, groups):
        return None
    if b is not None:
        y += b.reshape((1, -1) + (1,) * (y.ndim - 2))
    return y


def convolution_backward_weights(
    always: bool,
    x: Any,
    gy: Any,
    ksize: Sequence[int],
    stride: Sequence[int],
    pad: Sequence[int],
    dilate: Sequence[int],
    groups: int,
    w_dtype: Any,
) -> Any:
    if not (_float32(x, gy) and numpy.dtype(w_dtype) == _F32 and _spatial(x, always)):
        return None
    module = _library.dnnl()
    pad_r = _pad_after(x.shape[2:], ksize, stride, pad, dilate, gy.shape[2:])
    if module is None or pad_r is None:
        return None
    gW = numpy.empty((gy.shape[1], x.shape[1] // groups) + tuple(ksize), _F32)
    done = module.conv_backward_weights(
        _c(x), _c(gy), gW, None, tuple(stride), tuple(dilate), tuple(pad), pad_r, groups
    )
    return gW if done else None


def linear_forward(always: bool, x: Any, W: Any, b: Any) -> Any:
    if not (_float32(x, W, b) and x.ndim == 2 and W.ndim == 2):
        return None
    module = _library.dnnl()
    if module is None:
        return None
    y = numpy.empty((x.shape[0], W.shape[0]), _F32)
    return y if module.linear_forward(_c(x), _c(W), _c(b), y) else None


def linear_backward_data(always: bool, gy: Any, W: Any) -> Any:
    if not (_float32(gy, W) and gy.ndim == 2 and W.ndim == 2):
        return None
    module = _library.dnnl()
    if module is None:
        return None
    gx = numpy.empty((gy.shape[0], W.shape[1]), _F32)
    return gx if module.linear_backward_data(_c(gy), _c(W), gx) else None


def linear_backward_weights(always: bool, x: Any, gy: Any) -> Any:
    if not (_float32(x, gy) and x.ndim == 2 and gy.ndim == 2):
        return None
    module = _library.dnnl()
    if module is None:
        return None
    gW = numpy.empty((gy.shape[1], x.shape[1]), _F32)
    return gW if module.linear_backward_weights(_c(x), _c(gy), gW, None) else None
