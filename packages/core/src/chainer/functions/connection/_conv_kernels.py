"""Array kernels shared by convolution, deconvolution and pooling (N spatial axes).

Everything here works on raw arrays (NumPy or CuPy) and is written once for both:
patches are strided *views* of a padded input (no Python loop over pixels), the
products are single batched GEMMs, and the scatter back to images (``col2im``) is a
loop over the kernel offsets only, each step one strided slice-add over the whole
batch. On the CPU, the ``im2col`` and ``col2im`` kernels of a plugin
(:mod:`chainer.backends.cpu_kernels`), where one is registered, copy the patches from the
unpadded input and scatter them back instead.

Layout conventions: an input is ``(N, C, *spatial)``; a "col" view is
``(N, C, *ksize, *outsize)`` where ``col[n, c, k..., o...]`` is the input element seen
by kernel offset ``k`` at output position ``o``.
"""

from __future__ import annotations

import itertools
import math
import sys
from collections.abc import Sequence
from typing import Any

import numpy

from chainer import _workspace, backend, configuration
from chainer.backends import cpu_kernels, cuda, cudnn_library, intel64
from chainer.functions import _gpu_kernels


class OutputSizeError(ValueError, AssertionError):
    """A geometry whose output would be empty or negative.

    A ValueError; also an AssertionError, which is what Chainer raised for it (code
    written for Chainer catches that).
    """


def geometry_tuple(value: Any, n: int) -> tuple[int, ...]:
    """``value`` as ``n`` ints: an int is repeated, a sequence taken as it is (a node's
    constructor, as in Chainer, takes either; the type check reports a wrong length)."""
    if isinstance(value, (int, numpy.integer)):
        return (int(value),) * n
    return tuple(value)


def as_tuple(value: Any, n: int, name: str, where: str, minimum: int = 1) -> tuple[int, ...]:
    """Normalise an int-or-sequence argument (``stride=2`` -> ``(2, 2)``) and validate it.

    Raises ``ValueError``/``TypeError`` naming ``where`` (the public function) and ``name``.
    """
    if isinstance(value, (int, numpy.integer)) and not isinstance(value, bool):
        values: tuple[int, ...] = (int(value),) * n
    elif isinstance(value, Sequence) and not isinstance(value, str):
        if len(value) != n:
            raise ValueError(f"{where}: {name} must be an int or a sequence of {n} ints, got {tuple(value)!r}")
        if not all(isinstance(v, (int, numpy.integer)) and not isinstance(v, bool) for v in value):
            raise TypeError(f"{where}: {name} must contain ints, got {tuple(value)!r}")
        values = tuple(int(v) for v in value)
    else:
        raise TypeError(f"{where}: {name} must be an int or a sequence of {n} ints, got {value!r}")
    for v in values:
        if v < minimum:
            bound = "positive" if minimum == 1 else f">= {minimum}"
            raise ValueError(f"{where}: {name} must be {bound}, got {value!r}")
    return values


def conv_outsize(size: int, k: int, s: int, p: int, d: int, cover_all: bool) -> int:
    """Output length along one axis of a convolution (or pooling) window sweep."""
    dk = (k - 1) * d + 1
    if cover_all:
        return (size + 2 * p - dk + s - 1) // s + 1
    return (size + 2 * p - dk) // s + 1


def deconv_outsize(size: int, k: int, s: int, p: int, d: int, cover_all: bool = False) -> int:
    """Output length along one axis of a transposed convolution."""
    dk = (k - 1) * d + 1
    if cover_all:
        return s * (size - 1) + dk - s + 1 - 2 * p
    return s * (size - 1) + dk - 2 * p


def end_padding(in_size: int, out_size: int, k: int, s: int, p: int, d: int) -> int:
    """Padding needed after the input so that ``out_size`` windows fit (``>= 0``)."""
    return max(0, (out_size - 1) * s + (k - 1) * d + 1 - p - in_size)


def check_extent(
    where: str,
    image_shape: Sequence[int],
    itemsize: int,
    ksize: Sequence[int],
    stride: Sequence[int],
    pad: Sequence[int],
    dilate: Sequence[int],
    outsize: Sequence[int],
) -> None:
    """Refuse a window sweep whose padded image no array could hold.

    ``outsize`` is the number of windows per axis (a convolution's output size; for a
    transposed convolution, whose image is its output, its input size). The NumPy code
    pads the image ``(N, C, *in)`` to ``pad + in + end padding`` per axis and reads the
    windows from that; the compiled kernels read the unpadded image, at the same
    positions. Where the padded image would pass NumPy's limit on an array
    (``sys.maxsize`` bytes, zero-length axes aside), the NumPy code cannot allocate it and
    the kernels' index arithmetic nears overflow, so both paths refuse it here, with one
    message. Raises ``ValueError`` naming ``where``. A geometry that passed is remembered:
    a training loop checks the same few every step (on a GPU the Python time of an op is
    its cost).
    """
    key = (image_shape, itemsize, ksize, stride, pad, dilate, outsize)
    try:
        if key in _extents_checked:
            return
    except TypeError:  # a list among them: check without remembering
        key = None
    geometry = (ksize, stride, pad, dilate, outsize)
    if any(v > sys.maxsize for values in geometry for v in values):
        raise ValueError(
            f"{where}: ksize, stride, pad, dilate and the windows per axis must be at most sys.maxsize "
            f"({sys.maxsize}), got ksize {tuple(ksize)}, stride {tuple(stride)}, pad {tuple(pad)}, "
            f"dilate {tuple(dilate)}, windows per axis {tuple(outsize)}"
        )
    in_size = image_shape[2:]
    padded = tuple(
        p + n + end_padding(n, o, k, s, p, d) for n, o, k, s, p, d in zip(in_size, outsize, ksize, stride, pad, dilate)
    )
    shape = tuple(image_shape[:2]) + padded
    nbytes = itemsize * math.prod(n for n in shape if n)
    if nbytes > sys.maxsize:
        raise ValueError(
            f"{where}: the windows reach over a padded image of shape {shape}, {nbytes} bytes, more than the "
            f"{sys.maxsize} bytes an array can hold (image shape {tuple(image_shape)}, ksize {tuple(ksize)}, "
            f"stride {tuple(stride)}, pad {tuple(pad)}, dilate {tuple(dilate)}, windows per axis {tuple(outsize)})"
        )
    if key is not None:
        if len(_extents_checked) >= 4096:
            _extents_checked.clear()
        _extents_checked.add(key)


_extents_checked: set[tuple[Any, ...]] = set()


def pad_spatial(x: Any, before: Sequence[int], after: Sequence[int], value: float = 0) -> Any:
    """``x`` with its spatial axes (2...) padded by a constant; ``x`` itself if no padding."""
    if not any(before) and not any(after):
        return x
    xp = backend.get_array_module(x)
    if _gpu_kernels.handles(xp, len(before)):
        return _gpu_kernels.pad_spatial(x, tuple(before), tuple(after), value)
    shape = x.shape[:2] + tuple(n + b + a for n, b, a in zip(x.shape[2:], before, after))
    y = xp.empty(shape, x.dtype)
    # Fill only the borders: the interior is overwritten by x right after.
    lead = (slice(None), slice(None))
    for axis, (b, a) in enumerate(zip(before, after)):
        rest = (slice(None),) * (len(before) - axis - 1)
        middle = tuple(slice(p, p + n) for p, n in zip(before[:axis], x.shape[2 : 2 + axis]))
        if b:
            y[lead + middle + (slice(0, b),) + rest] = value
        if a:
            y[lead + middle + (slice(shape[2 + axis] - a, None),) + rest] = value
    y[lead + tuple(slice(b, b + n) for b, n in zip(before, x.shape[2:]))] = x
    return y


def _as_strided(xp: Any, x: Any, shape: tuple[int, ...], strides: tuple[int, ...]) -> Any:
    if xp is numpy:
        return numpy.lib.stride_tricks.as_strided(x, shape, strides, writeable=False)
    return xp.lib.stride_tricks.as_strided(x, shape, strides)


def im2col_view(
    x: Any,
    ksize: Sequence[int],
    stride: Sequence[int],
    pad: Sequence[int],
    dilate: Sequence[int],
    outsize: Sequence[int],
    pad_value: float = 0,
) -> Any:
    """A read-only strided view ``(N, C, *ksize, *outsize)`` of the padded ``x``.

    The padding after each axis is whatever ``outsize`` windows need (``cover_all``
    sweeps read past the regular padding). No data is copied except for the padding.
    """
    xp = backend.get_array_module(x)
    in_size = x.shape[2:]
    after = [end_padding(n, o, k, s, p, d) for n, o, k, s, p, d in zip(in_size, outsize, ksize, stride, pad, dilate)]
    xpad = pad_spatial(x, pad, after, pad_value)
    strides = xpad.strides
    sp = strides[2:]
    shape = tuple(xpad.shape[:2]) + tuple(ksize) + tuple(outsize)
    # The step along an axis of length 1 is never taken: 0 there, so that a stride or a
    # dilation past what NumPy's strides hold (one window, or a kernel of one tap) works.
    view_strides = (
        tuple(strides[:2])
        + tuple(t * d if k > 1 else 0 for t, d, k in zip(sp, dilate, ksize))
        + tuple(t * s if o > 1 else 0 for t, s, o in zip(sp, stride, outsize))
    )
    return _as_strided(xp, xpad, shape, view_strides)


def col2im(
    col: Any,
    stride: Sequence[int],
    pad: Sequence[int],
    dilate: Sequence[int],
    in_size: Sequence[int],
) -> Any:
    """Adjoint of :func:`im2col_view`: sum ``col`` ``(N, C, *ksize, *outsize)`` back
    onto an image ``(N, C, *in_size)`` (overlapping windows add up).

    One strided slice-add per kernel offset (one gather kernel on a GPU); the result is
    C-contiguous.
    """
    xp = backend.get_array_module(col)
    nd = len(in_size)
    if _gpu_kernels.handles(xp, nd):
        return _gpu_kernels.col2im(col, tuple(stride), tuple(pad), tuple(dilate), tuple(in_size))
    ksize = col.shape[2 : 2 + nd]
    outsize = col.shape[2 + nd :]
    kernel = cpu_kernels.get("col2im") if xp is numpy and col.flags.c_contiguous else None
    if kernel is not None:
        # Channels are contiguous in col, so it is one group of C * K rows.
        img = numpy.empty(col.shape[:2] + tuple(in_size), col.dtype)
        flat = col.reshape(col.shape[0], 1, -1, size(outsize))
        if kernel(flat, ksize, tuple(stride), tuple(pad), tuple(dilate), outsize, img):
            return img
    after = [end_padding(n, o, k, s, p, d) for n, o, k, s, p, d in zip(in_size, outsize, ksize, stride, pad, dilate)]
    padded = tuple(p + n + a for p, n, a in zip(pad, in_size, after))
    img = xp.zeros(col.shape[:2] + padded, col.dtype)
    lead = (slice(None), slice(None))
    for offset in itertools.product(*(range(k) for k in ksize)):
        window = tuple(slice(j * d, j * d + s * (o - 1) + 1, s) for j, d, s, o in zip(offset, dilate, stride, outsize))
        img[lead + window] += col[lead + offset]
    if not any(pad) and not any(after):
        return img
    crop = img[lead + tuple(slice(p, p + n) for p, n in zip(pad, in_size))]
    return xp.ascontiguousarray(crop)


def compute_dtype(*dtypes: Any) -> Any:
    """dtype in which GEMMs run: the promoted input dtype, float16 widened to float32
    (BLAS has no half-precision GEMM; accumulating in float32 is also more accurate)."""
    dtype = _compute_dtypes.get(dtypes)
    if dtype is None:
        dtype = numpy.result_type(*dtypes)
        if dtype == numpy.float16:
            dtype = numpy.dtype(numpy.float32)
        _compute_dtypes[dtypes] = dtype
    return dtype


_compute_dtypes: dict[tuple[Any, ...], Any] = {}


def size(shape: Sequence[int]) -> int:
    return math.prod(shape)


class _Patches:
    """Copies the patches of a batch range of ``x`` into a C-contiguous ``(m, G, R, L)``
    buffer (rows ``(C / G) * K`` and past left alone): on the CPU by the compiled
    ``im2col`` kernel where one is registered (it reads the unpadded ``x``), otherwise,
    or when it declines, from the strided view of the padded ``x``.

    Without a kernel the padded copy is made here, before the caller takes its scratch
    buffers, as the NumPy code always did: made after them, it changes the heap under the
    max pooling that follows and cost the NumPy-only CNN step of ``benchmarks/cnn.py``
    5 ms (46.5 against 41.5 ms)."""

    def __init__(
        self,
        x: Any,
        ksize: Sequence[int],
        stride: Sequence[int],
        pad: Sequence[int],
        dilate: Sequence[int],
        outsize: Sequence[int],
    ) -> None:
        self.x = x
        self.geometry = (tuple(ksize), tuple(stride), tuple(pad), tuple(dilate), tuple(outsize))
        self.kernel = cpu_kernels.get("im2col") if isinstance(x, numpy.ndarray) else None
        self._view: Any = None
        if self.kernel is None:
            self.view()

    def view(self) -> Any:
        """The ``(N, C, *ksize, *outsize)`` strided view of the padded ``x``."""
        if self._view is None:
            self._view = im2col_view(self.x, *self.geometry)
        return self._view

    def copy(self, start: int, stop: int, col: Any) -> None:
        if self.kernel is not None:
            if self.kernel(self.x[start:stop], *self.geometry, col):
                return
            self.kernel = None
        view = self.view()
        m, g = col.shape[:2]
        # Only split axes on both sides, so that both reshapes are views.
        split = (m, g, view.shape[1] // g) + tuple(view.shape[2:])
        kdim = split[2] * size(self.geometry[0])
        col[:, :, :kdim].reshape(split)[...] = view[start:stop].reshape(split)


# -- convolution kernels on arrays -------------------------------------------------------
#
# Geometry is passed explicitly: stride, pad and dilate per axis, and the output size of
# the *convolution* sweep (``outsize``), from which any extra end padding follows. The
# FunctionNodes derive ``outsize`` from ``cover_all`` once and pass it on, so backward
# passes (and deconvolutions with an explicit ``outsize``) reproduce the exact geometry
# on every axis.


def _cudnn(xp: Any, *arrays: Any) -> tuple[Any, dict[str, bool]]:
    """The cuDNN library (:mod:`chainer.backends.cudnn_library`) to try for a GPU call on
    ``arrays``, with its option flags from ``chainer.config``; ``(None, {})`` on the CPU,
    where ``use_cudnn`` rules it out, without a usable plugin, or for mixed dtypes (which
    the CuPy code promotes)."""
    if xp is numpy or not cuda.should_use_cudnn(">=auto"):
        return None, {}
    dtype = arrays[0].dtype
    if any(a.dtype != dtype for a in arrays[1:]) or dtype.kind != "f":
        return None, {}
    config = configuration.config
    flags = {
        "deterministic": bool(config.cudnn_deterministic),
        "autotune": bool(config.autotune),
        "tensor_core": cuda.should_use_cudnn_tensor_core(dtype),
    }
    return cudnn_library.usable(), flags


def _accelerated(xp: Any, intel64_slot: str, cudnn_operation: str, args: tuple[Any, ...]) -> Any:
    """What '@intel64' (NumPy arrays: its kernel ``intel64_slot``) or a cuDNN plugin (CuPy
    arrays: its method ``cudnn_operation``) computes for ``args`` = ``(x, W, b, stride, pad,
    dilate, groups, outsize)``, or ``None`` where neither takes the call."""
    if xp is numpy:
        return intel64.run(intel64_slot, *args)
    x, W, b = args[:3]
    library, flags = _cudnn(xp, x, W) if b is None else _cudnn(xp, x, W, b)
    return None if library is None else getattr(library, cudnn_operation)(*args, **flags)


def conv_forward(
    x: Any,
    W: Any,
    b: Any,
    stride: Sequence[int],
    pad: Sequence[int],
    dilate: Sequence[int],
    groups: int,
    outsize: Sequence[int],
) -> Any:
    """Grouped N-D cross-correlation ``y = W * x + b`` as batched GEMMs.

    ``x`` is ``(N, C, *in)``, ``W`` is ``(O, C // groups, *k)``; returns ``(N, O, *outsize)``
    in ``x.dtype``. On the CPU the batch goes through in chunks whose patches fit in the
    cache (:func:`batch_chunk`), so each chunk's GEMM reads what its copy just wrote. On
    the GPU a cuDNN plugin computes it where one is usable and takes the geometry.
    """
    xp = backend.get_array_module(x)
    args = (x, W, b, stride, pad, dilate, groups, outsize)
    if (y := _accelerated(xp, "convolution_forward", "convolution_forward", args)) is not None:
        return y
    dtype = compute_dtype(x.dtype, W.dtype)
    n, c = x.shape[:2]
    o = W.shape[0]
    ksize = W.shape[2:]
    g = groups
    kdim = (c // g) * size(ksize)
    lsize = size(outsize)
    patches = _Patches(x.astype(dtype, copy=False), ksize, stride, pad, dilate, outsize)
    w = W.astype(dtype, copy=False).reshape(g, o // g, kdim)
    # The bias rides along in the GEMM as an extra row of ones in the patches: cheaper
    # than a separate pass over the output.
    rows = kdim if b is None else kdim + 1
    if b is not None:
        w = xp.concatenate((w, b.astype(dtype, copy=False).reshape(g, o // g, 1)), axis=2)
    chunk = batch_chunk(xp, n, g * rows * lsize * dtype.itemsize)
    col = _workspace.scratch("conv_forward.col", (chunk, g, rows, lsize), dtype, xp)
    if b is not None:
        col[:, :, kdim] = 1
    y = xp.empty((n, g, o // g, lsize), dtype)
    for start in range(0, n, chunk):
        stop = min(start + chunk, n)
        part = col[: stop - start]
        patches.copy(start, stop, part)
        if g == 1:
            # (O, K) @ (n, K, L) -> (n, O, L): already in NC(spatial) order.
            xp.matmul(w[0], part[:, 0], out=y[start:stop, 0])
        else:
            xp.matmul(w, part, out=y[start:stop])
    return y.reshape((n, o) + tuple(outsize)).astype(x.dtype, copy=False)


# Bytes of patches per chunk of the batch on the CPU: a few MB, so that a chunk stays in
# the last-level cache between its im2col copy and its GEMM.
_CHUNK_BYTES = 4 * 1024 * 1024


def batch_chunk(xp: Any, n: int, bytes_per_item: int) -> int:
    """How many batch items one pass of a CPU kernel takes (all of them on a GPU)."""
    if xp is not numpy:
        return n
    return max(1, min(n, _CHUNK_BYTES // max(bytes_per_item, 1)))


def flipped_kernel(W: Any, groups: int) -> Any:
    """The kernel of the convolution equal to a stride-1 transposed convolution with
    ``W``: in and out channels swapped (per group) and every spatial axis reversed."""
    cin, cout_g = W.shape[:2]
    ksize = W.shape[2:]
    g = groups
    w = W.reshape((g, cin // g, cout_g) + ksize).swapaxes(1, 2)
    w = w[(Ellipsis,) + (slice(None, None, -1),) * len(ksize)]
    return w.reshape((g * cout_g, cin // g) + ksize)


def deconv_forward(
    x: Any,
    W: Any,
    b: Any,
    stride: Sequence[int],
    pad: Sequence[int],
    dilate: Sequence[int],
    groups: int,
    outsize: Sequence[int],
) -> Any:
    """Grouped N-D transposed convolution (the adjoint of :func:`conv_forward` in ``x``).

    ``x`` is ``(N, Cin, *in)``, ``W`` is ``(Cin, Cout // groups, *k)``; returns
    ``(N, Cout, *outsize)`` in ``x.dtype``. ``outsize`` is the image size, i.e. the input
    size of the convolution this transposes.
    """
    xp = backend.get_array_module(x)
    args = (x, W, b, stride, pad, dilate, groups, outsize)
    if (y := _accelerated(xp, "deconvolution_forward", "convolution_backward_data", args)) is not None:
        return y
    ksize = W.shape[2:]
    cin, cout = x.shape[1], W.shape[1] * groups
    if cin < cout and all(s == 1 for s in stride) and all((k - 1) * d >= p for k, d, p in zip(ksize, dilate, pad)):
        # With unit stride a transposed convolution is a plain convolution with the
        # flipped kernel. Its patches (im2col of x) have cin/cout the size of the
        # scattered columns, so gathering wins when the channels grow.
        flipped_pad = tuple((k - 1) * d - p for k, d, p in zip(ksize, dilate, pad))
        return conv_forward(x, flipped_kernel(W, groups), b, stride, flipped_pad, dilate, groups, outsize)
    dtype = compute_dtype(x.dtype, W.dtype)
    n = x.shape[0]
    cout_g = W.shape[1]
    g = groups
    in_size = x.shape[2:]
    kdim = cout_g * size(ksize)
    w = W.astype(dtype, copy=False).reshape(g, cin // g, kdim).swapaxes(1, 2)
    xc = x.astype(dtype, copy=False)
    kernel = cpu_kernels.get("col2im") if xp is numpy else None
    # The flat path saves a scattered col2im, unless col2im is one GPU kernel or compiled.
    flat_pays = all(s == 1 for s in stride) and not _gpu_kernels.handles(xp, len(in_size)) and kernel is None
    flat = _flat_geometry(in_size, ksize, pad, dilate, outsize) if flat_pays else None
    if kernel is not None:
        y = _deconv_compiled(kernel, xc, w, g, ksize, stride, pad, dilate, outsize)
    elif flat is not None:
        y = _deconv_flat(xc, w, g, pad, outsize, *flat)
    else:
        col = xp.matmul(w, xc.reshape(n, g, cin // g, size(in_size)))  # (N, G, Cout_g * K, L)
        col = col.reshape((n, g * cout_g) + tuple(ksize) + tuple(in_size))
        y = col2im(col, stride, pad, dilate, outsize)
    if b is not None:
        y += b.reshape((1, g * cout_g) + (1,) * len(outsize))
    return y.astype(x.dtype, copy=False)


def _deconv_compiled(
    kernel: Any,
    x: Any,
    w: Any,
    g: int,
    ksize: Sequence[int],
    stride: Sequence[int],
    pad: Sequence[int],
    dilate: Sequence[int],
    outsize: Sequence[int],
) -> Any:
    """Transposed convolution on the CPU with the compiled ``col2im`` kernel: per
    cache-sized chunk of the batch, one GEMM gives the columns ``(m, G, Cout_g * K, L)``
    and the kernel scatters them onto their images while they are still in the cache.
    This beats the flat path, whose GEMM runs over the padded images and whose scatter is
    K slice-adds over the whole output (conv 32->64 on 16x16: 4.7 against 6.4 ms).
    ``w`` is ``(G, Cout_g * K, Cin_g)``."""
    n, cin = x.shape[:2]
    in_size = x.shape[2:]
    lsize = size(in_size)
    rows = w.shape[1]
    cout = rows // size(ksize) * g
    y = numpy.empty((n, cout) + tuple(outsize), x.dtype)
    chunk = batch_chunk(numpy, n, g * rows * lsize * x.dtype.itemsize)
    col = _workspace.scratch("deconv_forward.col", (chunk, g, rows, lsize), x.dtype)
    xg = x.reshape(n, g, cin // g, lsize)
    geometry = (tuple(ksize), tuple(stride), tuple(pad), tuple(dilate), tuple(in_size))
    for start in range(0, n, chunk):
        stop = min(start + chunk, n)
        part = col[: stop - start]
        numpy.matmul(w, xg[start:stop], out=part)
        if not kernel(part, *geometry, y[start:stop]):
            split = (stop - start, cout) + tuple(ksize) + tuple(in_size)
            y[start:stop] = col2im(part.reshape(split), stride, pad, dilate, outsize)
    return y


def _flat_geometry(
    in_size: Sequence[int],
    ksize: Sequence[int],
    pad: Sequence[int],
    dilate: Sequence[int],
    outsize: Sequence[int],
) -> tuple[list[int], list[int]] | None:
    """Padded image size and flat kernel offsets for :func:`_deconv_flat`, or ``None``
    where it does not pay off: a 1x1 kernel (the scatter is trivial anyway) or padding
    that more than triples the columns of the GEMM."""
    after = [end_padding(o, i, k, 1, p, d) for o, i, k, p, d in zip(outsize, in_size, ksize, pad, dilate)]
    padded = [p + o + a for p, o, a in zip(pad, outsize, after)]
    if size(ksize) == 1 or size(padded) > 3 * size(in_size):
        return None
    axis_strides = [size(padded[axis + 1 :]) for axis in range(len(padded))]
    offsets = [
        sum(j * d * t for j, d, t in zip(offset, dilate, axis_strides))
        for offset in itertools.product(*(range(k) for k in ksize))
    ]
    return padded, offsets


def _deconv_flat(
    x: Any, w: Any, g: int, pad: Sequence[int], outsize: Sequence[int], padded: Sequence[int], offsets: Sequence[int]
) -> Any:
    """Unit-stride transposed convolution as one GEMM per group over the whole batch.

    ``x`` is laid out channel-major and flattened over (batch, padded image):
    ``(Cin, N * prod(padded))``, each image at the start of its padded block and zero
    elsewhere. The GEMM gives, for every kernel offset, a block of the same layout; in
    that layout a kernel offset is a constant shift of the flat index, so the scatter
    back (col2im) is one contiguous slice-add per offset over all channels and images.
    Real entries never cross into the next image's block (the padding holds them); the
    zero columns add nothing. ``w`` is ``(G, Cout_g * K, Cin_g)``.
    """
    xp = backend.get_array_module(x)
    n, cin = x.shape[:2]
    in_size = x.shape[2:]
    kdim = len(offsets)
    cout = w.shape[1] // kdim * g
    m = n * size(padded)
    flat = _workspace.scratch("deconv_flat.x", (cin, n) + tuple(padded), x.dtype, xp, zero=True)
    flat[(slice(None), slice(None)) + tuple(slice(0, i) for i in in_size)] = x.swapaxes(0, 1)
    img = _workspace.scratch("deconv_flat.img", (cout, m + offsets[-1]), x.dtype, xp, zero=True)
    # On the CPU, whole images at a time in cache-sized chunks of columns: the scatter
    # reads the GEMM's output while it is still in the cache.
    block = size(padded)
    chunk = batch_chunk(xp, n, w.shape[1] * g * block * x.dtype.itemsize) * block
    col = _workspace.scratch("deconv_flat.col", (g, w.shape[1], chunk), x.dtype, xp)
    flat = flat.reshape(g, cin // g, m)
    for begin in range(0, m, chunk):
        end = min(begin + chunk, m)
        part = col[:, :, : end - begin]
        xp.matmul(w, flat[:, :, begin:end], out=part)
        part = part.reshape(cout, kdim, end - begin)
        for k, start in enumerate(offsets):
            img[:, begin + start : end + start] += part[:, k]
    img = img[:, :m].reshape((cout, n) + tuple(padded))
    crop = img[(slice(None), slice(None)) + tuple(slice(p, p + o) for p, o in zip(pad, outsize))]
    return xp.ascontiguousarray(crop.swapaxes(0, 1))


# conv_grad_weight sums per-image products for kernels of fewer elements per group than
# this, and, where each image has at least _PER_IMAGE_POSITIONS output positions, for
# kernels of up to _PER_IMAGE_KERNEL elements per group. Measured on 2 cores (OpenBLAS):
# per image, conv 3->32 on 32x32 takes 1.9 ms against 2.2, 32->64 on 16x16 6.6 against
# 7.6 ms and 64->64 on 56x56 30 against 33 ms; 128->128 on 16x16 and anything on 8x8
# is faster as one GEMM.
_SMALL_KERNEL_GRADIENT = 4096
_PER_IMAGE_KERNEL = 64 * 1024
_PER_IMAGE_POSITIONS = 256


def conv_grad_weight(
    x: Any,
    gy: Any,
    ksize: Sequence[int],
    stride: Sequence[int],
    pad: Sequence[int],
    dilate: Sequence[int],
    groups: int,
    w_dtype: Any,
) -> Any:
    """Gradient of a convolution with respect to its kernel: ``gW[o, c, k] =
    sum_{n, l} gy[n, o, l] * col(x)[n, c, k, l]``, one GEMM contracting over batch and
    positions. Returns ``(O, C // groups, *ksize)`` in ``w_dtype``."""
    xp = backend.get_array_module(x)
    args = (x, gy, ksize, stride, pad, dilate, groups, w_dtype)
    if xp is numpy and (gW := intel64.run("convolution_backward_weights", *args)) is not None:
        return gW
    library, flags = _cudnn(xp, x, gy)
    if library is not None and numpy.dtype(w_dtype) == x.dtype:
        gW = library.convolution_backward_filter(x, gy, ksize, stride, pad, dilate, groups, **flags)
        if gW is not None:
            return gW
    dtype = compute_dtype(x.dtype, gy.dtype)
    n, c = x.shape[:2]
    o = gy.shape[1]
    outsize = gy.shape[2:]
    nd = len(outsize)
    g = groups
    kdim = (c // g) * size(ksize)
    lsize = size(outsize)
    patches = _Patches(x.astype(dtype, copy=False), ksize, stride, pad, dilate, outsize)
    gy = gy.astype(dtype, copy=False)
    og = o // g
    split = (g, c // g) + tuple(ksize) + tuple(outsize)
    # A small kernel (e.g. a first layer on RGB input), or on the CPU a moderate one over
    # many positions per image: one product per image, patches (K, L) times gy
    # transposed (L, O_g), and a sum over the images. This needs only the plain im2col
    # copy, and OpenBLAS runs these products faster than the other orientation or than
    # one GEMM with a small output and a long inner dimension. Otherwise the contracted
    # axes (batch, positions) go together at the end of both operands, so the product
    # is a single GEMM with a long inner dimension.
    per_image = og * kdim < _SMALL_KERNEL_GRADIENT or (
        xp is numpy and og * kdim <= _PER_IMAGE_KERNEL and lsize >= _PER_IMAGE_POSITIONS
    )
    axes = (1,) + tuple(range(2, 2 + nd)) + (0,) + tuple(range(2 + nd, 2 + 2 * nd))
    chunk = batch_chunk(xp, n, g * kdim * lsize * dtype.itemsize)
    gW = xp.zeros((g, kdim, og) if per_image else (g, og, kdim), dtype)
    for start in range(0, n, chunk):
        stop = min(start + chunk, n)
        m = stop - start
        if per_image:
            col = _workspace.scratch("conv_grad_weight.col", (m, g, kdim, lsize), dtype, xp)
            patches.copy(start, stop, col)
            gW += xp.matmul(col, gy[start:stop].reshape(m, g, og, lsize).swapaxes(2, 3)).sum(axis=0)
        else:
            col_t = _workspace.scratch("conv_grad_weight.col", (g, kdim, m * lsize), dtype, xp)
            target = split[:-nd] + (m,) + tuple(outsize)
            col_t.reshape(target)[...] = patches.view()[start:stop].transpose(axes).reshape(target)
            gy_t = _workspace.scratch("conv_grad_weight.gy", (g, og, m, lsize), dtype, xp)
            gy_t[...] = gy[start:stop].reshape(m, g, og, lsize).transpose(1, 2, 0, 3)
            gW += xp.matmul(gy_t.reshape(g, og, m * lsize), col_t.swapaxes(1, 2))
    if per_image:
        gW = gW.swapaxes(1, 2)
    return gW.reshape((o, c // g) + tuple(ksize)).astype(w_dtype, copy=False)
