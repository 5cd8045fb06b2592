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


# -- running and checking ------------------------------------------------------------------


class Mismatch(AssertionError):
    pass


def run(kernel, args, contract, counts):
    """Call the kernel, compare the outcome with ``contract()``; returns DECLINED, the
    contract's value for work done (to check the result with), or None (refused)."""
    try:
        want = contract()
        want_error = None
    except Refused as refused:
        want, want_error = None, refused.args[0]
    try:
        got = getattr(_ops, kernel)(*args)
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
    counts = {k: {"done": 0, "declined": 0, "refused": 0} for k in kernels + ["adam", "momentum_sgd"]}
    numpy.seterr(all="ignore")  # the data holds NaN and infinities on purpose
    for seed in range(first, first + count):
        for index, fuzz in enumerate((fuzz_im2col, fuzz_pooling, fuzz_relu, fuzz_optimizers)):
            rs = numpy.random.RandomState([seed, index])
            try:
                fuzz(rs, counts)
            except Mismatch as exc:
                sys.exit(f"seed {seed}, {fuzz.__name__}: {exc}")
    print(json.dumps(counts))


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
