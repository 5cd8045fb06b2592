"""Fuzzing of ``chainer_cpu_kernels._ops``, run as a script (``python _kernel_fuzz.py
FIRST_SEED COUNT``) in a child process by ``test_kernel_fuzz.py``, so that a crash is an
exit status, not a dead test run.

Each seed draws one call of every kernel: random geometry (sizes 0 to a few, and values
near the overflow limits of a C ``Py_ssize_t``), dtypes (float32/64 and several the
kernels decline), layouts (contiguous, strided, reversed, transposed, read-only,
memoryviews, lists) and wrong sizes. Beside the call, this script works out from the
kernels' documented contract (``chainer.backends.cpu_kernels.SLOTS`` and the argument
rules of each kernel) what must happen: the work done (``True``, then the result is
compared with a NumPy computation written here), a decline (``False``, nothing written),
or a refusal (an exception of the expected type whose message names the kernel). Any
other outcome stops the script with the seed and the call.

Prints one JSON line: ``{kernel: {"done": n, "declined": n, "refused": n}}``.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import sys

import numpy

from chainer_cpu_kernels import _ops

MAX = sys.maxsize  # PY_SSIZE_T_MAX
NEAR_OVERFLOW = [2**31 - 1, 2**32 + 1, 2**62, 2**63 - 2, MAX, 2**63, 2**64, -(2**63), -(2**63) - 1, -1]
FLOATS = (numpy.float32, numpy.float64)
OTHER_DTYPES = (numpy.float16, numpy.int32, numpy.int8, numpy.dtype(">f4"), numpy.dtype(">f8"), numpy.complex64)

DONE, DECLINED = "done", "declined"


class Refused(Exception):
    """What the contract says the call must raise: ``Refused(TypeError)``."""


def _is_index(v):
    return isinstance(v, (int, numpy.integer))


# -- arrays -------------------------------------------------------------------------------


class Arg:
    """An array argument: the object passed, and whether the kernels take it as a float
    array (``ok``), and its dtype and shape."""

    def __init__(self, obj, ok, dtype, shape):
        self.obj, self.ok, self.dtype, self.shape = obj, ok, dtype, shape

    def values(self):
        return numpy.array(self.obj, copy=True)


def _fill(rs, shape, dtype):
    if numpy.dtype(dtype).kind in "iu":
        return rs.randint(-5, 6, size=shape).astype(dtype)
    a = rs.standard_normal(shape)
    if a.size and rs.rand() < 0.1:
        a.flat[rs.randint(a.size)] = rs.choice([numpy.nan, numpy.inf, -numpy.inf, -0.0])
    return a.astype(dtype)


def make_arg(rs, shape, dtype, writable, odd=0.15):
    """An argument of ``shape``: mostly a C-contiguous array of ``dtype``; with
    probability ``odd`` one of the layouts the kernels decline, or a memoryview."""
    shape = tuple(shape)
    a = _fill(rs, shape, dtype)
    kind = rs.choice(["plain", "strided", "reversed", "transposed", "read-only", "memoryview", "list"])
    if rs.rand() >= odd:
        kind = "plain"
    native_float = numpy.dtype(dtype) in (numpy.dtype(numpy.float32), numpy.dtype(numpy.float64))
    if kind == "strided" and shape:
        b = numpy.zeros(shape[:-1] + (2 * shape[-1],), a.dtype)
        b[..., ::2] = a
        a = b[..., ::2]
    elif kind == "reversed" and shape:
        a = a[..., ::-1].copy()[..., ::-1]
    elif kind == "transposed" and len(shape) > 1:
        a = numpy.ascontiguousarray(a.T).T
    elif kind == "read-only":
        a.flags.writeable = False
    elif kind == "memoryview":
        return Arg(memoryview(a), native_float and not (writable and not a.flags.writeable), a.dtype, shape)
    elif kind == "list":
        return Arg(a.tolist(), False, a.dtype, shape)
    ok = native_float and a.flags.c_contiguous and (a.flags.writeable or not writable)
    return Arg(a, ok, a.dtype, shape)


def _array(arg):
    return numpy.asarray(arg.obj)


# -- the geometry argument rules of im2col/col2im ----------------------------------------


def draw_int(rs, low, high, near=0.03):
    if rs.rand() < near:
        return int(rs.choice(NEAR_OVERFLOW))
    return int(rs.randint(low, high + 1))


def draw_sequence(rs, values):
    """``values`` as a tuple mostly, else as a list, a NumPy array, a sequence of the wrong
    length, floats or something that is not a sequence."""
    r = rs.rand()
    if r < 0.85:
        return tuple(values)
    if r < 0.93:
        return list(values)
    if r < 0.96 and all(-(2**63) <= v <= MAX for v in values):
        return numpy.array(values, numpy.int64)
    if r < 0.97:
        return tuple(values) + (1,)
    if r < 0.98:
        return tuple(float(v) for v in values)
    if r < 0.99:
        return tuple(bool(v) for v in values)
    return 3


def check_ints(seq, nd, minimum):
    """The contract of one geometry argument of im2col/col2im; returns the ints."""
    try:
        items = list(seq)
    except TypeError:
        raise Refused(ValueError) from None
    if len(items) != nd:
        raise Refused(ValueError)
    values = []
    for v in items:
        if not _is_index(v):
            raise Refused(TypeError)
        v = int(v)
        if not -MAX - 1 <= v <= MAX:
            raise Refused(OverflowError)
        if v < minimum:
            raise Refused(ValueError)
        values.append(v)
    return values


def im2col_contract(img, col, geometry):
    """What im2col or col2im must do with the image ``img`` and patches ``col``; returns
    DECLINED or the parsed geometry, or raises Refused."""
    if not (img.ok and col.ok) or img.dtype != col.dtype or not 3 <= len(img.shape) <= 5:
        return DECLINED
    nd = len(img.shape) - 2
    k, s, p, d, out = (check_ints(v, nd, m) for v, m in zip(geometry, (1, 1, 0, 1, 1)))
    for axis in range(nd):
        bound = (out[axis] - 1) * s[axis] + (k[axis] - 1) * d[axis] + p[axis] + img.shape[2 + axis]
        if bound > MAX:
            raise Refused(ValueError)
    n, c = img.shape[:2]
    L, kdim = math.prod(out), math.prod(k)
    if len(col.shape) != 4 or col.shape[0] != n or col.shape[1] < 1 or c % col.shape[1]:
        raise Refused(ValueError)
    rows = c // col.shape[1] * kdim
    if L > MAX or kdim > MAX or rows > MAX or col.shape[2] < rows or col.shape[3] != L:
        raise Refused(ValueError)
    return k, s, p, d, out


def _positions(in_size, k, s, p, d, out):
    """Per axis, the input index read by kernel offset j at output o (``in_size`` where it
    falls outside, the slot of an extra zero), as an int64 table (k, out)."""
    index = numpy.empty((k, out), numpy.int64)
    for j, o in itertools.product(range(k), range(out)):
        v = o * s + j * d - p  # Python ints: no overflow here
        index[j, o] = v if 0 <= v < in_size else in_size
    return index


def _gather_index(in_size, k, s, p, d, out):
    """Index arrays into the image extended by one zero per axis, broadcast to
    (*k, *out) over the axes."""
    nd = len(in_size)
    tables = []
    for axis in range(nd):
        t = _positions(in_size[axis], k[axis], s[axis], p[axis], d[axis], out[axis])
        shape = [1] * (2 * nd)
        shape[axis], shape[nd + axis] = k[axis], out[axis]
        tables.append(t.reshape(shape))
    return tuple(tables)


def reference_col(x, geometry, col_before):
    """``col_before`` with the patches of ``x`` in its first (C / G) * K rows."""
    k, s, p, d, out = geometry
    n, c = x.shape[:2]
    col = col_before.astype(numpy.float64)
    if n * c == 0:  # nothing to copy (and K may be huge)
        return col
    ext = numpy.pad(x.astype(numpy.float64), [(0, 0), (0, 0)] + [(0, 1)] * (x.ndim - 2))
    patches = ext[(slice(None), slice(None)) + _gather_index(x.shape[2:], k, s, p, d, out)]
    kdim = c // col.shape[1] * math.prod(k)
    col[:, :, :kdim] = patches.reshape(n, col.shape[1], kdim, -1)
    return col


def reference_img(col, geometry, img_shape):
    k, s, p, d, out = geometry
    n, c = img_shape[:2]
    if n * c == 0:
        return numpy.zeros(img_shape)
    groups = col.shape[1]
    kdim = c // groups * math.prod(k)
    patches = col[:, :, :kdim].astype(numpy.float64).reshape((n, c) + tuple(k) + tuple(out))
    ext = numpy.zeros((n, c) + tuple(m + 1 for m in img_shape[2:]))
    index = _gather_index(img_shape[2:], k, s, p, d, out)
    full = tuple(numpy.broadcast_to(t, tuple(k) + tuple(out)) for t in index)
    for i, ch in itertools.product(range(n), range(c)):
        numpy.add.at(ext[i, ch], full, patches[i, ch])
    return ext[(slice(None), slice(None)) + tuple(slice(0, m) for m in img_shape[2:])]


def draw_im2col(rs):
    nd = int(rs.choice([1, 2, 2, 3, 0, 4], p=[0.25, 0.3, 0.1, 0.25, 0.05, 0.05]))
    n, c = int(rs.choice([0, 1, 2])), int(rs.choice([0, 1, 2, 3, 4]))
    in_size = [int(rs.choice([0, 1, 2, 3, 5, 7], p=[0.05, 0.15, 0.2, 0.3, 0.2, 0.1])) for _ in range(nd)]
    k = [draw_int(rs, 1, 3) for _ in range(nd)]
    s = [draw_int(rs, 1, 3) for _ in range(nd)]
    p = [draw_int(rs, 0, 2) for _ in range(nd)]
    d = [draw_int(rs, 1, 2) for _ in range(nd)]
    out = []
    for axis in range(nd):
        natural = (in_size[axis] + 2 * p[axis] - (k[axis] - 1) * d[axis] - 1) // max(s[axis], 1) + 1
        out.append(draw_int(rs, 1, 3) if natural < 1 or natural > 9 or rs.rand() < 0.2 else natural)
    groups = int(rs.choice([g for g in range(1, max(c, 1) + 1) if c % g == 0] if rs.rand() < 0.95 else [3]))
    kdim, L = (c // groups) * math.prod(k), math.prod(out)
    extra = int(rs.choice([0, 0, 1, 2]))
    col_shape = [n, groups, kdim + extra, L]
    if rs.rand() < 0.1:
        col_shape[int(rs.randint(4))] += int(rs.choice([-1, 1]))
    if rs.rand() < 0.03:
        col_shape = col_shape[:3]
    if any(v < 0 or v > 4096 for v in col_shape) or math.prod(col_shape) > 200_000:
        col_shape = [n, groups, 1, 1]  # sizes too large to allocate: a wrong shape instead
    dtype = FLOATS[rs.randint(2)] if rs.rand() < 0.9 else OTHER_DTYPES[rs.randint(len(OTHER_DTYPES))]
    col_dtype = dtype if rs.rand() < 0.95 else FLOATS[rs.randint(2)]
    geometry = [draw_sequence(rs, v) for v in (k, s, p, d, out)]
    return (n, c, in_size), dtype, col_shape, col_dtype, geometry


def fuzz_im2col(rs, counts):
    (n, c, in_size), dtype, col_shape, col_dtype, geometry = draw_im2col(rs)
    for kernel in ("im2col", "col2im"):
        img_written = kernel == "col2im"
        img = make_arg(rs, (n, c, *in_size), dtype, img_written)
        col = make_arg(rs, col_shape, col_dtype, not img_written)
        img_before, col_before = img.values(), col.values()
        args = (col.obj, *geometry, img.obj) if img_written else (img.obj, *geometry, col.obj)
        outcome = run(kernel, args, functools.partial(im2col_contract, img, col, geometry), counts)
        written, before = (img, img_before) if img_written else (col, col_before)
        if outcome == DECLINED:
            same(_array(written), before, kernel, "wrote to an array while declining")
        elif outcome is not None and img_written:
            close(_array(img), reference_img(col_before, outcome, img.shape), img.dtype, kernel)
        elif outcome is not None:
            want = reference_col(img_before, outcome, col_before)
            same(_array(col), want, kernel, "differs from the patches (or touched rows past them)")


# -- max pooling ---------------------------------------------------------------------------

POOL_LIMIT = 2**20


def pool_geometry_contract(values):
    """kh, kw, sy, sx (>= 1) and ph, pw (>= 0) must be Python ints; any past 2**20, or a
    window past 4096 elements, is declined. Returns whether the call is declined."""
    decline = False
    for i, v in enumerate(values):
        if not isinstance(v, int):
            raise Refused(TypeError)
        if v < (1 if i < 4 else 0):
            raise Refused(ValueError)
        decline = decline or v > POOL_LIMIT
    kh, kw = values[:2]
    return decline or kh > 4096 or kw > 4096 or kh * kw > 4096


def index_ok(arg, writable):
    """The type of indexes the pooling kernels take (C-contiguous int8 or int32), or None."""
    if not isinstance(arg.obj, (numpy.ndarray, memoryview)):
        return None
    a = _array(arg)
    if not a.flags.c_contiguous or (writable and not a.flags.writeable) or a.dtype.byteorder == ">":
        return None
    return {numpy.dtype(numpy.int8): "i8", numpy.dtype(numpy.int32): "i32"}.get(a.dtype)


def pool_shapes_contract(image, pooled, index, index_type, geometry):
    if len(image.shape) != 4 or len(pooled.shape) != 4 or len(index.shape) != 4:
        raise Refused(ValueError)
    if image.shape[:2] != pooled.shape[:2] or index.shape != pooled.shape:
        raise Refused(ValueError)
    kh, kw, sy, sx, ph, pw = geometry
    h, w = image.shape[2:]
    oh, ow = pooled.shape[2:]
    rows = max(oh - 1, 0) * sy + kh + ph + h
    cols = max(ow - 1, 0) * sx + kw + pw + w
    if rows * cols > MAX:
        raise Refused(ValueError)
    if index_type == "i8" and kh * kw > 128:
        raise Refused(ValueError)


def reference_max(x, geometry, outsize):
    kh, kw, sy, sx, ph, pw = geometry
    n, c, h, w = x.shape
    ext = numpy.pad(x.astype(numpy.float64), [(0, 0), (0, 0), (0, 1), (0, 1)], constant_values=-numpy.inf)
    best = numpy.full((n, c) + outsize, -numpy.inf)
    where = numpy.zeros((n, c) + outsize, numpy.int64)
    for t, (dy, dx) in enumerate(itertools.product(range(kh), range(kw))):
        rows = _positions(h, 1, sy, ph - dy, 1, outsize[0])[0]
        cols = _positions(w, 1, sx, pw - dx, 1, outsize[1])[0]
        v = ext[:, :, rows[:, None], cols[None, :]]
        more = v > best
        where[more] = t
        best = numpy.where(more | numpy.isnan(v), v, best)
    return best, where


def reference_scatter(gy, index, geometry, image_shape):
    kh, kw, sy, sx, ph, pw = geometry
    n, c, h, w = image_shape
    gx = numpy.zeros((n, c, h + 1, w + 1))
    oh, ow = gy.shape[2:]
    t = index.astype(numpy.int64)
    inside = (t >= 0) & (t < kh * kw)
    dy, dx = numpy.where(inside, t // kw, 0), numpy.where(inside, t % kw, 0)
    yy = numpy.arange(oh)[:, None] * sy - ph + dy
    xx = numpy.arange(ow)[None, :] * sx - pw + dx
    hit = inside & (yy >= 0) & (yy < h) & (xx >= 0) & (xx < w)
    yy, xx = numpy.where(hit, yy, h), numpy.where(hit, xx, w)
    for i, ch in itertools.product(range(n), range(c)):
        numpy.add.at(gx[i, ch], (yy[i, ch], xx[i, ch]), numpy.where(hit[i, ch], gy[i, ch].astype(numpy.float64), 0))
    return gx[:, :, :h, :w]


def draw_pool_int(rs, low, high):
    r = rs.rand()
    if r < 0.04:
        return int(rs.choice(NEAR_OVERFLOW + [POOL_LIMIT, POOL_LIMIT + 1]))
    if r < 0.05:
        return float(rs.randint(low, high + 1))
    if r < 0.06:
        return numpy.int64(rs.randint(low, high + 1))
    return int(rs.randint(low, high + 1))


def fuzz_pooling(rs, counts):
    geometry = [draw_pool_int(rs, 1, 4), draw_pool_int(rs, 1, 4), draw_pool_int(rs, 1, 3)]
    geometry += [draw_pool_int(rs, 1, 3), draw_pool_int(rs, 0, 2), draw_pool_int(rs, 0, 2)]
    if rs.rand() < 0.1:
        geometry[:4] = [2, 2, 2, 2]
        geometry[4:] = [0, 0]
    n, c = int(rs.choice([0, 1, 2])), int(rs.choice([0, 1, 3]))
    h, w = (int(rs.choice([0, 1, 2, 4, 5, 8])) for _ in range(2))
    small = [v if isinstance(v, int) and 0 <= v <= 8 else 1 for v in geometry]
    kh, kw, sy, sx, ph, pw = small
    cover = int(rs.rand() < 0.5)
    oh = max((h + 2 * ph - kh + cover * (sy - 1)) // sy + 1, 0)
    ow = max((w + 2 * pw - kw + cover * (sx - 1)) // sx + 1, 0)
    if rs.rand() < 0.15:
        oh, ow = int(rs.randint(0, 5)), int(rs.randint(0, 5))
    pooled_shape = [n, c, oh, ow]
    if rs.rand() < 0.05:
        pooled_shape[int(rs.randint(4))] += 1
    dtype = FLOATS[rs.randint(2)] if rs.rand() < 0.9 else OTHER_DTYPES[rs.randint(len(OTHER_DTYPES))]
    pooled_dtype = dtype if rs.rand() < 0.95 else FLOATS[rs.randint(2)]
    index_dtype = [numpy.int8, numpy.int32, numpy.int64, numpy.uint8][rs.choice(4, p=[0.45, 0.45, 0.05, 0.05])]
    index_shape = list(pooled_shape) if rs.rand() < 0.95 else [n, c, oh + 1, ow]
    n_index = max(small[0] * small[1], 1)

    # forward: x -> y, indexes
    x = make_arg(rs, (n, c, h, w), dtype, False)
    y = make_arg(rs, pooled_shape, pooled_dtype, True)
    idx = make_arg(rs, index_shape, index_dtype, True)
    y_before, idx_before = y.values(), idx.values()

    def forward_contract():
        if pool_geometry_contract(geometry):
            return DECLINED
        index_type = index_ok(idx, True)
        if not (x.ok and y.ok and index_type) or x.dtype != y.dtype:
            return DECLINED
        pool_shapes_contract(x, y, idx, index_type, geometry)
        return tuple(geometry)

    outcome = run("max_pooling_2d_forward", (x.obj, *geometry, y.obj, idx.obj), forward_contract, counts)
    if outcome == DECLINED:
        same(_array(y), y_before, "max_pooling_2d_forward", "wrote y while declining")
        same(_array(idx), idx_before, "max_pooling_2d_forward", "wrote indexes while declining")
    elif outcome is not None:
        best, where = reference_max(x.values(), outcome, tuple(pooled_shape[2:]))
        same(_array(y), best, "max_pooling_2d_forward", "differs from the window maxima")
        same(_array(idx), where, "max_pooling_2d_forward", "differs from the first maxima's offsets")

    # backward: gy, indexes -> gx
    gy = make_arg(rs, pooled_shape, pooled_dtype, False)
    low, high = (-2, n_index + 2) if rs.rand() < 0.3 else (0, n_index)
    index_values = rs.randint(low, high, size=index_shape)
    idx = make_arg(rs, index_shape, index_dtype, False)
    if isinstance(idx.obj, numpy.ndarray) and idx.obj.flags.writeable:
        idx.obj[...] = index_values.astype(index_dtype)
    gx = make_arg(rs, (n, c, h, w), dtype, True)
    gx_before = gx.values()

    def backward_contract():
        if pool_geometry_contract(geometry):
            return DECLINED
        index_type = index_ok(idx, False)
        if not (gy.ok and index_type and gx.ok) or gx.dtype != gy.dtype:
            return DECLINED
        pool_shapes_contract(gx, gy, idx, index_type, geometry)
        return tuple(geometry)

    outcome = run("max_pooling_2d_backward", (gy.obj, idx.obj, *geometry, gx.obj), backward_contract, counts)
    if outcome == DECLINED:
        same(_array(gx), gx_before, "max_pooling_2d_backward", "wrote gx while declining")
    elif outcome is not None:
        want = reference_scatter(gy.values(), idx.values(), outcome, gx.shape)
        close(_array(gx), want, gx.dtype, "max_pooling_2d_backward")


# -- element-wise kernels -----------------------------------------------------------------


def same_size_contract(kernel, arrays):
    """ck_acquire_same: in order, decline at the first array that is not a float array of
    the first one's dtype; refuse (ValueError) at the first whose size differs."""
    for a in arrays:
        if not a.ok or a.dtype != arrays[0].dtype:
            return DECLINED
        if math.prod(a.shape) != math.prod(arrays[0].shape):
            raise Refused(ValueError)
    return "done"


def draw_sizes(rs, count):
    shape = tuple(int(v) for v in rs.choice([0, 1, 2, 3, 7, 33], size=rs.randint(0, 4)))
    shapes = [shape] * count
    if rs.rand() < 0.1:  # one array of another size
        shapes[int(rs.randint(count))] = shape + (2,) if math.prod(shape) else (1,)
    return shapes


def draw_dtypes(rs, count):
    dtype = FLOATS[rs.randint(2)] if rs.rand() < 0.9 else OTHER_DTYPES[rs.randint(len(OTHER_DTYPES))]
    dtypes = [dtype] * count
    if rs.rand() < 0.05:
        dtypes[int(rs.randint(count))] = FLOATS[rs.randint(2)]
    return dtypes


def fuzz_relu(rs, counts):
    shapes, dtypes = draw_sizes(rs, 3), draw_dtypes(rs, 3)
    y, gy, gx = (make_arg(rs, s, d, i == 2) for i, (s, d) in enumerate(zip(shapes, dtypes)))
    gx_before = gx.values()
    outcome = run(
        "relu_backward", (y.obj, gy.obj, gx.obj), lambda: same_size_contract("relu_backward", [y, gy, gx]), counts
    )
    if outcome == DECLINED:
        same(_array(gx), gx_before, "relu_backward", "wrote gx while declining")
    elif outcome is not None:
        want = gy.values() * (y.values() > 0)
        same(_array(gx).ravel(), want.ravel(), "relu_backward", "differs from gy * (y > 0)")


def draw_scalar(rs):
    r = rs.rand()
    if r < 0.85:
        return float(rs.uniform(0.0, 0.5))
    if r < 0.93:
        return float(rs.choice([0.0, 1.0, numpy.nan, numpy.inf, -numpy.inf, 1e308, -1e-320]))
    if r < 0.96:
        return int(rs.randint(0, 3))
    return ["0.1", None, [0.1]][rs.randint(3)]


def real_contract(values):
    if any(isinstance(v, (str, list)) or v is None for v in values):
        raise Refused(TypeError)


def fuzz_optimizers(rs, counts):
    fuzz_adam(rs, counts)
    fuzz_momentum(rs, counts)


def fuzz_adam(rs, counts):
    amsgrad = rs.rand() < 0.3
    n = 5 if amsgrad else 4
    shapes, dtypes = draw_sizes(rs, n), draw_dtypes(rs, n)
    arrays = [make_arg(rs, s, d, i != 1) for i, (s, d) in enumerate(zip(shapes, dtypes))]
    for a in arrays[2:]:
        if isinstance(a.obj, numpy.ndarray) and a.obj.flags.writeable and a.obj.dtype.kind == "f":
            numpy.abs(a.obj, out=a.obj)  # m may be anything, v and vhat are squares
    scalars = [draw_scalar(rs) for _ in range(6)]
    bounds = [draw_scalar(rs), draw_scalar(rs)] if rs.rand() < 0.3 else [None, None]
    adabound = any(b is not None for b in bounds)
    vhat = arrays[4].obj if amsgrad else None
    args = tuple(a.obj for a in arrays[:4]) + (vhat, *scalars, *bounds)
    before = [a.values() for a in arrays]

    def contract():
        real_contract(scalars + [b for b in bounds if b is not None])
        return same_size_contract("adam", arrays)

    outcome = run("adam", args, contract, counts)
    if outcome == DECLINED:
        for a, b in zip(arrays, before):
            same(_array(a), b, "adam", "wrote to an array while declining")
    elif outcome is not None:
        dtype = arrays[0].dtype.type
        p, g, m, v = (b.ravel().astype(dtype) for b in before[:4])
        lr, omb1, omb2, eps, wd, eta = (dtype(s) for s in scalars)
        m = m + (g - m) * omb1
        v = v * dtype(1.0 - scalars[2]) + g * g * omb2
        vhat = before[4].ravel().astype(dtype) if amsgrad else None
        vv = numpy.where(vhat > v, vhat, v) if amsgrad else v  # a NaN v wins, as in the kernel
        if adabound:
            lower = dtype(0.0) if bounds[0] is None else dtype(bounds[0])
            upper = dtype(numpy.inf) if bounds[1] is None else dtype(bounds[1])
            step = lr / (numpy.sqrt(vv) + eps)
            step = numpy.where(step < lower, lower, step)
            step = numpy.where(step > upper, upper, step) * m
        else:
            step = m / (numpy.sqrt(vv) + eps) * lr
        if scalars[4] != 0.0:
            step = step + wd * p
        if scalars[5] != 1.0:
            step = step * eta
        for got, want in ((arrays[0], p - step), (arrays[2], m), (arrays[3], v)):
            close(_array(got).ravel(), want, got.dtype, "adam")
        if amsgrad:
            close(_array(arrays[4]).ravel(), vv, arrays[4].dtype, "adam")


def fuzz_momentum(rs, counts):
    shapes, dtypes = draw_sizes(rs, 3), draw_dtypes(rs, 3)
    arrays = [make_arg(rs, s, d, i != 1) for i, (s, d) in enumerate(zip(shapes, dtypes))]
    scalars = [draw_scalar(rs), draw_scalar(rs)]
    before = [a.values() for a in arrays]

    def contract():
        real_contract(scalars)
        return same_size_contract("momentum_sgd", arrays)

    outcome = run("momentum_sgd", (*(a.obj for a in arrays), *scalars), contract, counts)
    if outcome not in (DECLINED, None):
        dtype = arrays[0].dtype.type
        p, g, v = (b.ravel().astype(dtype) for b in before)
        lr, momentum = dtype(scalars[0]), dtype(scalars[1])
        v = v * momentum - lr * g
        close(_array(arrays[2]).ravel(), v, arrays[2].dtype, "momentum_sgd")
        close(_array(arrays[0]).ravel(), p + v, arrays[0].dtype, "momentum_sgd")


# -- the LSTM cell, softmax cross entropy, the embedding gradient ----------------------------


def f32_matrix_ok(arg):
    """The LSTM and softmax cross-entropy kernels take C-contiguous float32 matrices only."""
    return arg.ok and arg.dtype == numpy.float32 and len(arg.shape) == 2


def draw_matrix_shape(rs, rows, cols):
    """(rows, cols) mostly; sometimes off by one somewhere, or of another rank."""
    r = rs.rand()
    if r < 0.06:
        return (rows + 1, cols)
    if r < 0.12:
        return (rows, cols + 1)
    if r < 0.15:
        return (rows, cols, 1)
    return (rows, cols)


def finite_close(got, want, kernel, rtol=2e-5):
    """``got`` within ``rtol`` of the float64 reference where that is finite (non-finite
    inputs go through clamped exponentials whose limits the direct tests check)."""
    got, want = numpy.asarray(got, numpy.float64), numpy.asarray(want, numpy.float64)
    finite = numpy.isfinite(want) & (numpy.abs(want) < 1e30)
    scale = numpy.max(numpy.abs(want[finite]), initial=1.0)
    if got.shape != want.shape or not numpy.allclose(got[finite], want[finite], rtol=rtol, atol=rtol * scale):
        raise Mismatch(f"{kernel} differs from the float64 formula:\n{got}\nwant\n{want}")


def _sigmoid64(v):
    with numpy.errstate(all="ignore"):
        return 1 / (1 + numpy.exp(-v))


def fuzz_lstm(rs, counts):
    rows = int(rs.choice([0, 1, 2, 5]))
    batch = int(rs.randint(0, rows + 1)) if rs.rand() < 0.95 else rows + 1
    units = int(rs.choice([0, 1, 2, 3, 7, 33]))
    dtype = numpy.float32 if rs.rand() < 0.8 else draw_dtypes(rs, 1)[0]
    shapes = {
        "c_prev": draw_matrix_shape(rs, rows, units),
        "x": draw_matrix_shape(rs, batch, 4 * units),
        "c": draw_matrix_shape(rs, rows, units),
        "h": draw_matrix_shape(rs, batch, units),
        "gc": draw_matrix_shape(rs, rows, units),
        "gh": draw_matrix_shape(rs, batch, units),
        "gc_prev": draw_matrix_shape(rs, rows, units),
        "gx": draw_matrix_shape(rs, batch, 4 * units),
    }
    # Taken as read-only arrays here; the contract asks the written ones to be writable.
    a = {k: make_arg(rs, s, dtype if rs.rand() < 0.97 else numpy.float64, False, odd=0.05) for k, s in shapes.items()}

    def writable(arg):
        obj = arg.obj
        return not obj.readonly if isinstance(obj, memoryview) else obj.flags.writeable

    def contract(names, expected):
        written = names[2:4] if len(names) == 4 else names[5:]
        if not all(f32_matrix_ok(a[k]) for k in names) or not all(writable(a[k]) for k in written):
            return DECLINED
        B, H = a["c_prev"].shape
        b, four_h = a["x"].shape
        if b > B or four_h != 4 * H:
            raise Refused(ValueError)
        for k in names[2:]:
            if a[k].shape != expected(B, b, H)[k]:
                raise Refused(ValueError)
        return "done"

    def expected(B, b, H):
        return {"c": (B, H), "h": (b, H), "gc": (B, H), "gh": (b, H), "gc_prev": (B, H), "gx": (b, 4 * H)}

    forward = ("c_prev", "x", "c", "h")
    before = {k: v.values() for k, v in a.items()}
    outcome = run("lstm_forward", tuple(a[k].obj for k in forward), lambda: contract(forward, expected), counts)
    if outcome == DECLINED:
        for k in ("c", "h"):
            same(_array(a[k]), before[k], "lstm_forward", f"wrote {k} while declining")
    elif outcome is not None:
        batch = a["x"].shape[0]  # the drawn shape may be off the intended one by a row
        c_prev, x = before["c_prev"].astype(numpy.float64), before["x"].astype(numpy.float64)
        with numpy.errstate(all="ignore"):
            g = [x[:, k::4] for k in range(4)]
            c_head = numpy.tanh(g[0]) * _sigmoid64(g[1]) + _sigmoid64(g[2]) * c_prev[:batch]
            finite_close(_array(a["c"])[:batch], c_head, "lstm_forward")
            same(_array(a["c"])[batch:], before["c_prev"][batch:], "lstm_forward", "changed the finished rows")
            finite_close(_array(a["h"]), _sigmoid64(g[3]) * numpy.tanh(c_head), "lstm_forward")
    backward = ("c_prev", "x", "c", "gc", "gh", "gc_prev", "gx")
    outcome = run("lstm_backward", tuple(a[k].obj for k in backward), lambda: contract(backward, expected), counts)
    if outcome == DECLINED:
        for k in ("gc_prev", "gx"):
            same(_array(a[k]), before[k], "lstm_backward", f"wrote {k} while declining")
    elif outcome is not None:
        batch = a["x"].shape[0]
        same(
            _array(a["gc_prev"])[batch:], before["gc"][batch:], "lstm_backward", "did not pass gc to the finished rows"
        )


def draw_ids(rs, shape, low, high):
    """Int ids mostly (int32/int64, odd layouts sometimes), else another dtype."""
    dtype = [numpy.int32, numpy.int64][rs.randint(2)] if rs.rand() < 0.95 else numpy.float32
    ids = rs.randint(low, high + 1, size=shape).astype(dtype)
    kind = rs.choice(["plain", "strided", "memoryview", "list", "read-only"], p=[0.85, 0.04, 0.04, 0.03, 0.04])
    if kind == "strided" and ids.ndim and ids.shape[-1]:
        wide = numpy.zeros(ids.shape[:-1] + (2 * ids.shape[-1],), dtype)
        wide[..., ::2] = ids
        ids = wide[..., ::2]
    elif kind == "memoryview":
        return memoryview(ids), dtype != numpy.float32, ids
    elif kind == "list":
        return ids.tolist(), False, ids
    elif kind == "read-only":
        ids.flags.writeable = False
    return ids, dtype != numpy.float32 and ids.flags.c_contiguous, ids


def draw_ignore(rs, allow_none):
    r = rs.rand()
    if r < 0.4 and allow_none:
        return None
    if r < 0.95:
        return int(rs.randint(-2, 4))
    return [2**63, -(2**63) - 1, "1", 1.5][rs.randint(4)]


def int64_contract(value, allow_none):
    if value is None and allow_none:
        return
    if not isinstance(value, int) or not -(2**63) <= value < 2**63:
        raise Refused(TypeError)


def fuzz_embed(rs, counts):
    vocab, units = int(rs.choice([0, 1, 3, 6])), int(rs.choice([0, 1, 2, 5]))
    ids_shape = tuple(int(v) for v in rs.choice([0, 1, 2, 4], size=rs.randint(0, 3)))
    ids, ids_ok, ids_values = draw_ids(rs, ids_shape, -1 if rs.rand() < 0.1 else 0, max(vocab - (rs.rand() < 0.9), 0))
    n = math.prod(ids_shape)
    dtype = draw_dtypes(rs, 1)[0]
    gy = make_arg(rs, (n * units + (rs.rand() < 0.05),), dtype, False, odd=0.05)
    gW = make_arg(
        rs, draw_matrix_shape(rs, vocab, units) if rs.rand() < 0.95 else (vocab * units,), dtype, True, odd=0.05
    )
    ignore = draw_ignore(rs, True)
    before = gW.values()

    def contract():
        int64_contract(ignore, True)
        if not (ids_ok and gy.ok and gW.ok and gy.dtype == gW.dtype and len(gW.shape) == 2):
            return DECLINED
        if math.prod(gy.shape) != n * gW.shape[1]:
            raise Refused(ValueError)
        kept = ids_values.ravel()[ids_values.ravel() != ignore]
        if kept.size and (kept.min() < 0 or kept.max() >= gW.shape[0]):
            return DECLINED
        return "done"

    outcome = run("embed_id_backward", (ids, gy.obj, ignore, gW.obj), contract, counts)
    if outcome == DECLINED:
        same(_array(gW), before, "embed_id_backward", "wrote gW while declining")
    elif outcome is not None:
        want = numpy.zeros(gW.shape, gW.dtype)
        flat, rows = ids_values.ravel(), gy.values().reshape(n, gW.shape[1])
        numpy.add.at(want, flat[flat != ignore], rows[flat != ignore])
        same(_array(gW), want, "embed_id_backward", "differs from numpy.add.at")


def fuzz_softmax_cross_entropy(rs, counts):
    rows, classes = int(rs.choice([0, 1, 3, 20])), int(rs.choice([0, 1, 2, 17, 40]))
    dtype = numpy.float32 if rs.rand() < 0.85 else draw_dtypes(rs, 1)[0]
    x = make_arg(rs, draw_matrix_shape(rs, rows, classes), dtype, False, odd=0.05)
    t_shape = (rows + (rs.rand() < 0.04),) if rs.rand() < 0.97 else (rows, 1)
    ignore = draw_ignore(rs, False)
    t, t_ok, t_values = draw_ids(rs, t_shape, -1, max(classes - (rs.rand() < 0.9), 0))
    t_ok = t_ok and len(t_shape) == 1
    weighted = rs.rand() < 0.3
    cw = make_arg(rs, (classes + (rs.rand() < 0.05),), dtype, False, odd=0.05) if weighted else None
    y = make_arg(rs, draw_matrix_shape(rs, rows, classes), dtype, True, odd=0.05) if rs.rand() < 0.7 else None
    loss = make_arg(rs, (rows + (rs.rand() < 0.04),), dtype, True, odd=0.05)

    def output_contract(arg, shape):
        if not (arg.ok and arg.dtype == numpy.float32):
            return DECLINED
        if arg.shape != shape:
            raise Refused(ValueError)
        return "done"

    def inputs_contract():
        """Both kernels' checks of x, t and the class weights: x's shape, or DECLINED."""
        int64_contract(ignore, False)
        if not (f32_matrix_ok(x) and t_ok and (cw is None or (cw.ok and cw.dtype == numpy.float32))):
            return DECLINED
        n, c = x.shape
        if t_shape[0] != n or (cw is not None and cw.shape[0] != c):
            raise Refused(ValueError)
        return n, c

    def labels_contract(n, c):
        labels = t_values.ravel()
        if ((labels != ignore) & ((labels < 0) | (labels >= c))).any() or (c == 0 and n > 0):
            return DECLINED
        return "done"

    def contract():
        shape = inputs_contract()
        if shape == DECLINED:
            return DECLINED
        if y is not None and output_contract(y, shape) == DECLINED:
            return DECLINED
        if output_contract(loss, shape[:1]) == DECLINED:
            return DECLINED
        return labels_contract(*shape)

    args = (x.obj, t, ignore, None if cw is None else cw.obj, None if y is None else y.obj, loss.obj)
    before = loss.values()
    outcome = run(
        "softmax_cross_entropy_forward",
        args,
        contract,
        counts,
        call=lambda *a: _ops.softmax_cross_entropy_forward(*a) >= 0,
    )
    if outcome == DECLINED:
        same(_array(loss), before, "softmax_cross_entropy_forward", "wrote loss while declining")
    elif outcome is not None:
        xv = x.values().astype(numpy.float64)
        with numpy.errstate(all="ignore"):
            z = xv - xv.max(axis=1, keepdims=True, initial=-numpy.inf)
            log_y = z - numpy.log(numpy.exp(z).sum(axis=1, keepdims=True))
        labels = t_values.ravel()
        valid = labels != ignore
        index = numpy.where(valid, labels, 0)
        # An ignored row has label 0 and weight w * 0 (NaN for a NaN weight), as in the NumPy code.
        w = numpy.ones(rows) if cw is None else cw.values().astype(numpy.float64)[index]
        want = -log_y[numpy.arange(rows), index] * (w * valid) if rows else numpy.zeros(0)
        finite_close(_array(loss), want, "softmax_cross_entropy_forward")
        if y is not None:
            finite_close(_array(y), numpy.exp(log_y), "softmax_cross_entropy_forward")
    # The backward, on x in place of the softmax (the kernel takes any float32 rows).
    gy = make_arg(rs, (() if rs.rand() < 0.5 else (rows + (rs.rand() < 0.05),)), dtype, False, odd=0.05)
    coeff = draw_scalar(rs)
    gx = make_arg(rs, draw_matrix_shape(rs, rows, classes), dtype, True, odd=0.05)

    def backward_contract():
        real_contract([coeff])
        shape = inputs_contract()
        if shape == DECLINED or not (gy.ok and gy.dtype == numpy.float32):
            return DECLINED
        if math.prod(gy.shape) != 1 and gy.shape != shape[:1]:
            raise Refused(ValueError)
        if output_contract(gx, shape) == DECLINED:
            return DECLINED
        return labels_contract(*shape)

    args = (x.obj, t, ignore, None if cw is None else cw.obj, gy.obj, coeff, gx.obj)
    before = gx.values()
    outcome = run("softmax_cross_entropy_backward", args, backward_contract, counts)
    if outcome == DECLINED:
        same(_array(gx), before, "softmax_cross_entropy_backward", "wrote gx while declining")
    elif outcome is not None:
        xv = x.values().astype(numpy.float64)
        labels = t_values.ravel()
        valid = labels != ignore
        index = numpy.where(valid, labels, 0)
        w = numpy.ones(rows) if cw is None else cw.values().astype(numpy.float64)[index]
        scale = (
            numpy.broadcast_to(gy.values().astype(numpy.float64).ravel(), (rows,)) * numpy.float32(coeff) * (w * valid)
        )
        with numpy.errstate(all="ignore"):
            want = xv * scale[:, None]
            want[numpy.arange(rows), index] = (xv[numpy.arange(rows), index] - 1) * scale
        finite_close(_array(gx), want, "softmax_cross_entropy_backward")


def fuzz_transpose_add_bias(rs, counts):
    rows, cols = int(rs.choice([0, 1, 3, 20])), int(rs.choice([0, 1, 5, 17, 40]))
    dtypes = draw_dtypes(rs, 3)
    yt = make_arg(rs, draw_matrix_shape(rs, cols, rows), dtypes[0], False, odd=0.05)
    b = make_arg(rs, (cols + (rs.rand() < 0.04),), dtypes[1], False, odd=0.05) if rs.rand() < 0.7 else None
    y = make_arg(rs, draw_matrix_shape(rs, rows, cols), dtypes[2], True, odd=0.05)
    before = y.values()

    def contract():
        arrays = [yt, y] + ([] if b is None else [b])
        if not all(a.ok and a.dtype == yt.dtype for a in arrays):
            return DECLINED
        if len(yt.shape) != 2 or len(y.shape) != 2 or (b is not None and len(b.shape) != 1):
            return DECLINED
        n, c = y.shape
        if yt.shape != (c, n) or (b is not None and b.shape[0] != c):
            raise Refused(ValueError)
        return "done"

    outcome = run("transpose_add_bias", (yt.obj, None if b is None else b.obj, y.obj), contract, counts)
    if outcome == DECLINED:
        same(_array(y), before, "transpose_add_bias", "wrote y while declining")
    elif outcome is not None:
        want = numpy.ascontiguousarray(yt.values().T)
        if b is not None:
            want += b.values()
        same(_array(y), want, "transpose_add_bias", "differs from NumPy's yt.T + b")


# -- running and checking ------------------------------------------------------------------


class Mismatch(AssertionError):
    pass


def run(kernel, args, contract, counts, call=None):
    """Call the kernel (through ``call`` when its result is not a bool), compare the
    outcome with ``contract()``; returns DECLINED, the contract's value for work done (to
    check the result with), or None (refused)."""
    try:
        want = contract()
        want_error = None
    except Refused as refused:
        want, want_error = None, refused.args[0]
    try:
        got = (call or getattr(_ops, kernel))(*args)
    except Exception as exc:  # every refusal must be clear: checked here
        if want_error is None or type(exc) is not want_error:
            raise Mismatch(
                f"{kernel} raised {type(exc).__name__}: {exc}; the contract says {want_error or want}"
            ) from None
        if not str(exc).startswith(f"chainer_cpu_kernels.{kernel}"):
            raise Mismatch(f"{kernel} raised a message that does not name it: {exc}") from None
        counts[kernel]["refused"] += 1
        return None
    if want_error is not None:
        raise Mismatch(f"{kernel} returned {got!r}; the contract says it raises {want_error.__name__}")
    if got is not (want != DECLINED):
        raise Mismatch(f"{kernel} returned {got!r}; the contract says {want}")
    counts[kernel]["declined" if want == DECLINED else "done"] += 1
    return want


def same(got, want, kernel, what):
    got, want = numpy.asarray(got), numpy.asarray(want)
    if got.shape != want.shape or not numpy.array_equal(got, want, equal_nan=got.dtype.kind in "fc"):
        raise Mismatch(f"{kernel} {what}:\n{got}\nwant\n{want}")


def close(got, want, dtype, kernel):
    got, want = numpy.asarray(got, numpy.float64), numpy.asarray(want, numpy.float64)
    rtol = 1e-5 if numpy.dtype(dtype) == numpy.float32 else 1e-12
    scale = numpy.max(numpy.abs(want[numpy.isfinite(want)]), initial=1.0)
    if got.shape != want.shape or not numpy.allclose(got, want, rtol=rtol, atol=rtol * scale, equal_nan=True):
        raise Mismatch(f"{kernel} differs from the NumPy computation:\n{got}\nwant\n{want}")


def main(first, count):
    kernels = ["im2col", "col2im", "max_pooling_2d_forward", "max_pooling_2d_backward", "relu_backward"]
    kernels += ["adam", "momentum_sgd", "lstm_forward", "lstm_backward", "embed_id_backward"]
    kernels += ["softmax_cross_entropy_forward", "softmax_cross_entropy_backward", "transpose_add_bias"]
    counts = {k: {"done": 0, "declined": 0, "refused": 0} for k in kernels}
    numpy.seterr(all="ignore")  # the data holds NaN and infinities on purpose
    fuzzers = (fuzz_im2col, fuzz_pooling, fuzz_relu, fuzz_optimizers, fuzz_lstm, fuzz_embed)
    fuzzers += (fuzz_softmax_cross_entropy, fuzz_transpose_add_bias)
    for seed in range(first, first + count):
        for index, fuzz in enumerate(fuzzers):
            rs = numpy.random.RandomState([seed, index])
            try:
                fuzz(rs, counts)
            except Mismatch as exc:
                sys.exit(f"seed {seed}, {fuzz.__name__}: {exc}")
    print(json.dumps(counts))


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
