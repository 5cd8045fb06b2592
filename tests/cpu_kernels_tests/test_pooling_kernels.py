"""The max pooling kernels called directly: against window-by-window loops written here,
over geometries that exercise the bounds-checked borders, the vectorised runs and the
2x2 tiling, and what they decline or refuse."""

import itertools
import math

import numpy
import pytest

_ops = pytest.importorskip("chainer_cpu_kernels._ops", reason="chainer-cpu-kernels is not installed")


def _outsize(n, k, s, p, cover_all):
    return (n + 2 * p - k + (s - 1 if cover_all else 0)) // s + 1


def _reference_forward(x, k, s, p, outsize):
    """Window maxima and flat argmax by plain loops; padding is -inf, the first maximum
    wins, and a NaN makes the maximum NaN without moving the index (NumPy's order)."""
    (kh, kw), (sy, sx), (ph, pw) = k, s, p
    n, c, h, w = x.shape
    y = numpy.empty((n, c) + outsize)
    idx = numpy.empty((n, c) + outsize, numpy.int64)
    for b, ch, oy, ox in itertools.product(range(n), range(c), range(outsize[0]), range(outsize[1])):
        best, best_t = -math.inf, 0
        for t, (dy, dx) in enumerate(itertools.product(range(kh), range(kw))):
            yy, xx = oy * sy - ph + dy, ox * sx - pw + dx
            v = float(x[b, ch, yy, xx]) if 0 <= yy < h and 0 <= xx < w else -math.inf
            if v > best:
                best, best_t = v, t
            elif math.isnan(v):
                best = v
        y[b, ch, oy, ox], idx[b, ch, oy, ox] = best, best_t
    return y, idx


def _reference_backward(gy, idx, k, s, p, image_shape):
    (kh, kw), (sy, sx), (ph, pw) = k, s, p
    gx = numpy.zeros(image_shape)
    h, w = image_shape[2:]
    for pos in itertools.product(*(range(m) for m in gy.shape)):
        b, ch, oy, ox = pos
        t = int(idx[pos])
        if not 0 <= t < kh * kw:
            continue
        yy, xx = oy * sy - ph + t // kw, ox * sx - pw + t % kw
        if 0 <= yy < h and 0 <= xx < w:
            gx[b, ch, yy, xx] += gy[pos]
    return gx


def _forward(x, k, s, p, outsize, index_dtype=numpy.int8):
    y = numpy.full(x.shape[:2] + outsize, 7.0, x.dtype)  # garbage the kernel must overwrite
    idx = numpy.full(y.shape, 99, index_dtype)
    assert _ops.max_pooling_2d_forward(x, *k, *s, *p, y, idx) is True
    return y, idx


def _backward(gy, idx, k, s, p, image_shape):
    gx = numpy.full(image_shape, numpy.nan, gy.dtype)
    assert _ops.max_pooling_2d_backward(gy, idx, *k, *s, *p, gx) is True
    return gx


def _check(x, k, s, p, cover_all, index_dtype=numpy.int8, rs=None):
    outsize = tuple(_outsize(n, kk, ss, pp, cover_all) for n, kk, ss, pp in zip(x.shape[2:], k, s, p))
    y_want, idx_want = _reference_forward(x, k, s, p, outsize)
    y, idx = _forward(x, k, s, p, outsize, index_dtype)
    assert y.dtype == x.dtype and idx.dtype == index_dtype
    numpy.testing.assert_array_equal(y, y_want.astype(x.dtype))
    numpy.testing.assert_array_equal(idx, idx_want)
    rs = rs or numpy.random.RandomState(0)
    gy = rs.standard_normal(y.shape).astype(x.dtype)
    gx = _backward(gy, idx, k, s, p, x.shape)
    tol = {"rtol": 1e-6, "atol": 1e-6} if x.dtype == numpy.float32 else {"rtol": 1e-14, "atol": 1e-14}
    numpy.testing.assert_allclose(gx, _reference_backward(gy, idx_want, k, s, p, x.shape), **tol)


def _distinct(shape, dtype, rs):
    """Distinct values (so that the argmax does not depend on the tie rule)."""
    return (rs.permutation(int(numpy.prod(shape))).reshape(shape) * 0.5 - 3.0).astype(dtype)


GEOMETRIES = [
    (k, s, p, cover_all)
    for k, s, p, cover_all in itertools.product([1, 2, 3], [1, 2, 3], [0, 1], [True, False])
    if not (p and k == 1)  # a 1-wide window with padding has all-padding windows: see below
]


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize(("k", "s", "p", "cover_all"), GEOMETRIES)
def test_square_geometries_match_the_window_loops(dtype, k, s, p, cover_all):
    rs = numpy.random.RandomState(k * 100 + s * 10 + p)
    x = _distinct((2, 3, 7, 6), dtype, rs)
    _check(x, (k, k), (s, s), (p, p), cover_all, rs=rs)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize(
    ("shape", "k", "s", "p", "cover_all"),
    [
        ((1, 2, 5, 9), (2, 3), (1, 2), (1, 0), False),
        ((1, 2, 9, 5), (3, 1), (2, 1), (0, 0), True),
        ((2, 1, 6, 8), (1, 2), (1, 2), (0, 1), True),  # all-padding-free 1-high windows
        ((2, 2, 4, 4), (4, 4), (1, 1), (2, 2), False),  # windows wider than the image
        ((1, 1, 3, 3), (1, 1), (1, 1), (1, 1), True),  # padding rows/columns: all-padding windows
        ((3, 2, 9, 11), (2, 2), (2, 2), (0, 0), True),  # 2x2 with odd sizes: not a tiling
        ((3, 2, 8, 10), (2, 2), (2, 2), (0, 0), True),  # the 2x2 tiling
        ((1, 2, 3, 1100), (2, 2), (2, 2), (0, 0), False),  # rows of more than 512 outputs
        ((1, 1, 2, 1100), (2, 3), (1, 1), (0, 1), False),
    ],
)
def test_rectangular_and_edge_geometries(dtype, shape, k, s, p, cover_all):
    rs = numpy.random.RandomState(sum(shape))
    _check(_distinct(shape, dtype, rs), k, s, p, cover_all, rs=rs)


@pytest.mark.parametrize("k", [(2, 2), (3, 3)])
def test_int32_indexes(k):
    # chainer-core uses int32 for windows of more than 127 elements; any window may use it.
    rs = numpy.random.RandomState(3)
    _check(_distinct((2, 3, 8, 8), numpy.float32, rs), k, (2, 2), (0, 0), True, numpy.int32, rs)


def test_tiling_over_many_rows_matches_the_window_loops():
    # 2x2 tiling of small images: runs span several rows, index blocks span several runs.
    rs = numpy.random.RandomState(5)
    _check(_distinct((4, 40, 6, 6), numpy.float32, rs), (2, 2), (2, 2), (0, 0), False, rs=rs)


@pytest.mark.parametrize("k", [(2, 2), (3, 3)])
@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_ties_nan_and_infinities_follow_numpys_order(k, dtype):
    rs = numpy.random.RandomState(1)
    x = rs.choice(numpy.array([0.0, 1.0, numpy.nan, -numpy.inf, numpy.inf]), size=(3, 4, 6, 6)).astype(dtype)
    _check(x, k, (2, 2), (0, 0), False, rs=rs)
    _check(x, k, (1, 1), (1, 1), True, rs=rs)


def test_first_maximum_wins_and_padding_never_does():
    x = numpy.full((1, 1, 2, 2), -numpy.inf, numpy.float32)
    y, idx = _forward(x, (2, 2), (1, 1), (1, 1), (3, 3))
    # Every window is -inf; the index stays at offset 0, the top-left element, which is
    # padding in the first row and column of windows and x[oy - 1, ox - 1] in the others.
    assert numpy.all(y == -numpy.inf) and numpy.all(idx == 0)
    gy = numpy.arange(1.0, 10.0, dtype=numpy.float32).reshape(1, 1, 3, 3)
    gx = _backward(gy, idx, (2, 2), (1, 1), (1, 1), x.shape)
    numpy.testing.assert_array_equal(gx, [[[[5.0, 6.0], [8.0, 9.0]]]])
    y, idx = _forward(numpy.ones((1, 1, 2, 2), numpy.float64), (2, 2), (2, 2), (0, 0), (1, 1))
    assert y[0, 0, 0, 0] == 1.0 and idx[0, 0, 0, 0] == 0


def test_backward_ignores_indexes_outside_the_window():
    gy = numpy.array([[[[1.0, 2.0, 3.0, 4.0]]]], numpy.float32)
    idx = numpy.array([[[[-1, 4, 1, 127]]]], numpy.int8)  # only 1 names an element
    gx = _backward(gy, idx, (1, 2), (1, 2), (0, 0), (1, 1, 1, 8))
    numpy.testing.assert_array_equal(gx, [[[[0, 0, 0, 0, 0, 3.0, 0, 0]]]])


def test_overlapping_windows_add_up():
    gy = numpy.array([[[[1.0, 2.0, 4.0]]]])
    idx = numpy.array([[[[2, 1, 0]]]], numpy.int32)  # all three name x[0, 0, 0, 2]
    gx = _backward(gy, idx, (1, 3), (1, 1), (0, 0), (1, 1, 1, 5))
    numpy.testing.assert_array_equal(gx, [[[[0, 0, 7.0, 0, 0]]]])


def _declined_cases():
    """(x, y, indexes) of the forward; the backward takes y as gy and x as gx."""
    f32, i8 = numpy.float32, numpy.int8
    image, pooled = (1, 2, 4, 4), (1, 2, 2, 2)

    def arrays(x_dtype=f32, y_dtype=f32, index_dtype=i8):
        return numpy.ones(image, x_dtype), numpy.full(pooled, 5, y_dtype), numpy.full(pooled, 3, index_dtype)

    x, y, idx = arrays()
    return {
        "float16": arrays(numpy.float16, numpy.float16),
        "mixed dtypes": arrays(y_dtype=numpy.float64),
        "int64 indexes": arrays(index_dtype=numpy.int64),
        "uint8 indexes": arrays(index_dtype=numpy.uint8),
        "x/gx not contiguous": (numpy.ones((1, 2, 4, 8), f32)[..., ::2], y, idx),
        "y/gy not contiguous": (x, numpy.full((1, 2, 2, 4), 5, f32)[..., ::2], idx),
        "indexes not contiguous": (x, y, numpy.full((1, 2, 2, 4), 3, i8)[..., ::2]),
        "read-only y/gx": (numpy.frombuffer(bytes(128), f32).reshape(image), y.copy(), idx),
        "not an array": (x.tolist(), y.tolist(), idx),
    }


@pytest.mark.parametrize("case", list(_declined_cases()))
def test_unsupported_arrays_are_declined_untouched(case):
    x, y, idx = _declined_cases()[case]
    if case == "read-only y/gx":
        y.flags.writeable = False
    before = [numpy.array(a, copy=True) for a in (x, y, idx)]
    assert _ops.max_pooling_2d_forward(x, 2, 2, 2, 2, 0, 0, y, idx) is False
    assert _ops.max_pooling_2d_backward(y, idx, 2, 2, 2, 2, 0, 0, x) is False
    for a, b in zip((x, y, idx), before, strict=True):
        numpy.testing.assert_array_equal(numpy.asarray(a), b)


def test_windows_over_4096_elements_are_declined():
    x = numpy.ones((1, 1, 70, 70), numpy.float32)
    y, idx = numpy.zeros((1, 1, 1, 1), numpy.float32), numpy.zeros((1, 1, 1, 1), numpy.int32)
    assert _ops.max_pooling_2d_forward(x, 65, 65, 1, 1, 0, 0, y, idx) is False
    assert _ops.max_pooling_2d_backward(y, idx, 65, 65, 1, 1, 0, 0, x) is False
    assert y[0, 0, 0, 0] == 0 and numpy.all(x == 1)


@pytest.mark.parametrize("huge", [2**20 + 1, 2**63 - 1, 2**64])
@pytest.mark.parametrize("at", range(6))
def test_geometry_past_the_kernels_range_is_declined(huge, at):
    """Windows, strides and paddings past 2**20 go to the NumPy code, which handles them or
    says why it cannot: the same outcome with or without the kernels."""
    x = numpy.ones((1, 1, 4, 4), numpy.float32)
    y, idx = numpy.zeros((1, 1, 1, 1), numpy.float32), numpy.zeros((1, 1, 1, 1), numpy.int32)
    geometry = [1, 1, 1, 1, 0, 0]
    geometry[at] = huge
    assert _ops.max_pooling_2d_forward(x, *geometry, y, idx) is False
    assert _ops.max_pooling_2d_backward(y, idx, *geometry, x) is False
    assert y[0, 0, 0, 0] == 0 and numpy.all(x == 1)


def test_bad_arguments_raise_naming_the_kernel():
    x, y = numpy.ones((1, 2, 4, 4), numpy.float32), numpy.zeros((1, 2, 2, 2), numpy.float32)
    idx = numpy.zeros((1, 2, 2, 2), numpy.int8)
    fwd, bwd = _ops.max_pooling_2d_forward, _ops.max_pooling_2d_backward
    with pytest.raises(TypeError, match=r"chainer_cpu_kernels.max_pooling_2d_forward takes 9 arguments, got 2"):
        fwd(x, 2)
    with pytest.raises(TypeError, match=r"max_pooling_2d_forward: kw must be an int, got 2.0"):
        fwd(x, 2, 2.0, 2, 2, 0, 0, y, idx)
    with pytest.raises(ValueError, match=r"max_pooling_2d_backward: sy must be >= 1, got 0"):
        bwd(y, idx, 2, 2, 0, 2, 0, 0, x)
    with pytest.raises(ValueError, match=r"max_pooling_2d_forward: pw must be >= 0, got -1"):
        fwd(x, 2, 2, 2, 2, 0, -1, y, idx)
    with pytest.raises(ValueError, match=r"max_pooling_2d_forward: ph must be >= 0, got -18446744073709551616"):
        fwd(x, 2, 2, 2, 2, -(2**64), 0, y, idx)
    with pytest.raises(ValueError, match=r"max_pooling_2d_forward: x must have 4 axes \(N, C, H, W\), got 3"):
        fwd(x[0], 2, 2, 2, 2, 0, 0, y, idx)
    with pytest.raises(ValueError, match=r"max_pooling_2d_forward: y has 1 x 3 images and channels, expected 1 x 2"):
        fwd(x, 2, 2, 2, 2, 0, 0, numpy.zeros((1, 3, 2, 2), numpy.float32), idx)
    with pytest.raises(ValueError, match=r"max_pooling_2d_backward: indexes have shape \(1, 2, 2, 1\), expected gy's"):
        bwd(y, idx[..., :1].copy(), 2, 2, 2, 2, 0, 0, x)
    with pytest.raises(ValueError, match=r"max_pooling_2d_forward: int8 indexes hold windows of at most 128 elements"):
        fwd(x, 12, 11, 2, 2, 4, 4, y, idx)
