"""The patch-matrix kernels called directly: against naive loops over the output positions
and kernel offsets written here, over geometries (strides, padding, dilation, end padding
past the regular one, groups, a row of the caller's past the patches, one to three
spatial axes), and what they decline or refuse."""

import itertools
import math

import numpy
import pytest

_ops = pytest.importorskip("chainer_cpu_kernels._ops", reason="chainer-cpu-kernels is not installed")

DTYPES = [numpy.float32, numpy.float64]


def _reference_col(x, ksize, stride, pad, dilate, outsize, groups, rows):
    """col (N, G, rows, L) by one loop iteration per (image, channel, offset, position);
    rows past the patches keep the marker value 7."""
    n, c = x.shape[:2]
    cg = c // groups
    kdim = math.prod(ksize)
    col = numpy.full((n, groups, rows, math.prod(outsize)), 7.0)
    for i, ch in itertools.product(range(n), range(c)):
        g, ci = divmod(ch, cg)
        for k, offset in enumerate(itertools.product(*map(range, ksize))):
            for pos, position in enumerate(itertools.product(*map(range, outsize))):
                index = [o * s + j * d - p for o, j, s, d, p in zip(position, offset, stride, dilate, pad)]
                inside = all(0 <= v < size for v, size in zip(index, x.shape[2:]))
                col[i, g, ci * kdim + k, pos] = x[(i, ch, *index)] if inside else 0.0
    return col


def _reference_img(col, ksize, stride, pad, dilate, outsize, in_size, channels):
    """The adjoint: every entry of col added at the place it came from."""
    n, groups = col.shape[:2]
    cg = channels // groups
    kdim = math.prod(ksize)
    img = numpy.zeros((n, channels, *in_size))
    for i, ch in itertools.product(range(n), range(channels)):
        g, ci = divmod(ch, cg)
        for k, offset in enumerate(itertools.product(*map(range, ksize))):
            for pos, position in enumerate(itertools.product(*map(range, outsize))):
                index = [o * s + j * d - p for o, j, s, d, p in zip(position, offset, stride, dilate, pad)]
                if all(0 <= v < size for v, size in zip(index, in_size)):
                    img[(i, ch, *index)] += col[i, g, ci * kdim + k, pos]
    return img


def _outsize(in_size, ksize, stride, pad, dilate, extra):
    return tuple(
        (n + 2 * p - (k - 1) * d - 1) // s + 1 + e
        for n, k, s, p, d, e in zip(in_size, ksize, stride, pad, dilate, extra)
    )


# (in_size, ksize, stride, pad, dilate, extra output positions past the regular sweep, as
# cover_all gives), channels, groups, extra rows.
GEOMETRIES = [
    ((5, 6), (3, 3), (1, 1), (1, 1), (1, 1), (0, 0), 3, 1, 0),  # the benchmark's: flat shifted copy
    ((16, 16), (3, 3), (1, 1), (1, 1), (1, 1), (0, 0), 2, 1, 1),  # with the forward's bias row
    ((7, 5), (2, 3), (2, 1), (0, 2), (1, 1), (0, 0), 2, 1, 0),
    ((7, 9), (3, 2), (1, 2), (2, 1), (2, 1), (1, 1), 4, 2, 0),
    ((6, 7), (1, 1), (2, 2), (0, 0), (1, 1), (0, 0), 3, 1, 0),
    ((5, 5), (3, 3), (2, 2), (1, 1), (2, 2), (1, 0), 4, 4, 2),
    ((4, 4), (3, 3), (1, 1), (2, 2), (1, 1), (0, 0), 1, 1, 0),  # padding wider than the image's rows
    ((3, 8), (3, 3), (1, 1), (0, 1), (1, 2), (0, 0), 2, 1, 0),
    ((9,), (3,), (2,), (1,), (1,), (1,), 3, 1, 0),
    ((8,), (2,), (1,), (0,), (3,), (0,), 2, 2, 1),
    ((4, 5, 3), (2, 3, 1), (1, 1, 2), (1, 1, 0), (1, 1, 1), (0, 0, 0), 2, 1, 0),
    ((5, 3, 4), (3, 2, 2), (2, 1, 1), (1, 0, 1), (1, 2, 1), (1, 0, 0), 2, 2, 1),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("geometry", GEOMETRIES)
def test_im2col_matches_naive_loops(dtype, geometry):
    in_size, ksize, stride, pad, dilate, extra, channels, groups, extra_rows = geometry
    outsize = _outsize(in_size, ksize, stride, pad, dilate, extra)
    rs = numpy.random.RandomState(len(in_size) * 100 + channels)
    x = rs.standard_normal((2, channels, *in_size)).astype(dtype)
    rows = channels // groups * math.prod(ksize) + extra_rows
    col = numpy.full((2, groups, rows, math.prod(outsize)), 7.0, dtype)
    assert _ops.im2col(x, ksize, stride, pad, dilate, outsize, col) is True
    # A copy: exact.
    numpy.testing.assert_array_equal(col, _reference_col(x, ksize, stride, pad, dilate, outsize, groups, rows))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("geometry", GEOMETRIES)
def test_col2im_matches_naive_loops(dtype, geometry):
    in_size, ksize, stride, pad, dilate, extra, channels, groups, extra_rows = geometry
    outsize = _outsize(in_size, ksize, stride, pad, dilate, extra)
    rs = numpy.random.RandomState(len(in_size) * 100 + channels + 1)
    rows = channels // groups * math.prod(ksize) + extra_rows
    col = rs.standard_normal((2, groups, rows, math.prod(outsize))).astype(dtype)
    img = numpy.full((2, channels, *in_size), numpy.nan, dtype)  # overwritten, not added to
    assert _ops.col2im(col, ksize, stride, pad, dilate, outsize, img) is True
    want = _reference_img(col.astype(numpy.float64), ksize, stride, pad, dilate, outsize, in_size, channels)
    tol = {"rtol": 1e-6, "atol": 1e-6} if dtype == numpy.float32 else {"rtol": 1e-13, "atol": 1e-13}
    numpy.testing.assert_allclose(img, want, **tol)


def test_col2im_is_the_adjoint_of_im2col():
    # <im2col(x), c> == <x, col2im(c)> for a geometry with every kind of edge.
    in_size, ksize, stride, pad, dilate, outsize = (7, 6), (3, 2), (2, 1), (1, 2), (1, 2), (5, 7)
    rs = numpy.random.RandomState(3)
    x = rs.standard_normal((3, 4, *in_size))
    c = rs.standard_normal((3, 2, 2 * 6, 35))
    col = numpy.empty_like(c)
    img = numpy.empty_like(x)
    assert _ops.im2col(x, ksize, stride, pad, dilate, outsize, col)
    assert _ops.col2im(c, ksize, stride, pad, dilate, outsize, img)
    assert numpy.vdot(col, c) == pytest.approx(numpy.vdot(x, img), rel=1e-12)


@pytest.mark.parametrize(
    "x, col",
    [
        (numpy.zeros((1, 1, 4, 4), numpy.float16), numpy.zeros((1, 1, 9, 4), numpy.float16)),
        (numpy.zeros((1, 1, 4, 4), numpy.float32), numpy.zeros((1, 1, 9, 4), numpy.float64)),
        (numpy.zeros((1, 1, 4, 8), numpy.float32)[:, :, :, ::2], numpy.zeros((1, 1, 9, 4), numpy.float32)),
        (numpy.zeros((1, 1, 4, 4), numpy.float32), numpy.zeros((1, 1, 9, 8), numpy.float32)[:, :, :, ::2]),
        (numpy.zeros((1, 1, 4, 4), numpy.int32), numpy.zeros((1, 1, 9, 4), numpy.int32)),
        ([[[[0.0] * 4] * 4]], numpy.zeros((1, 1, 9, 4))),
    ],
    ids=["float16", "mixed-dtypes", "strided-x", "strided-col", "int32", "list"],
)
def test_declines_what_it_does_not_handle(x, col):
    col_before = numpy.array(col, copy=True)
    assert _ops.im2col(x, (3, 3), (1, 1), (0, 0), (1, 1), (2, 2), col) is False
    numpy.testing.assert_array_equal(col, col_before)
    assert _ops.col2im(col, (3, 3), (1, 1), (0, 0), (1, 1), (2, 2), x) is False


def test_declines_four_spatial_axes():
    x = numpy.zeros((1, 1, 2, 2, 2, 2))
    col = numpy.zeros((1, 1, 1, 16))
    assert _ops.im2col(x, (1,) * 4, (1,) * 4, (0,) * 4, (1,) * 4, (2,) * 4, col) is False
    assert _ops.col2im(col, (1,) * 4, (1,) * 4, (0,) * 4, (1,) * 4, (2,) * 4, x) is False


def test_declines_a_read_only_output():
    x = numpy.zeros((1, 1, 4, 4))
    col = numpy.zeros((1, 1, 9, 4))
    col.flags.writeable = False
    assert _ops.im2col(x, (3, 3), (1, 1), (0, 0), (1, 1), (2, 2), col) is False


GOOD = {"ksize": (3, 3), "stride": (1, 1), "pad": (0, 0), "dilate": (1, 1), "outsize": (2, 2)}


@pytest.mark.parametrize(
    "change, col_shape, error, match",
    [
        ({"ksize": (3,)}, (1, 2, 9, 4), ValueError, r"im2col: ksize must be a sequence of 2 ints"),
        ({"stride": 1}, (1, 2, 9, 4), ValueError, r"stride must be a sequence of 2 ints.*got 1"),
        ({"pad": (0, -1)}, (1, 2, 9, 4), ValueError, r"pad must be >= 0 on every axis, got \(0, -1\)"),
        ({"dilate": (0, 1)}, (1, 2, 9, 4), ValueError, r"dilate must be >= 1"),
        ({"outsize": (2.0, 2)}, (1, 2, 9, 4), TypeError, r"outsize must contain ints"),
        ({}, (1, 2, 9, 5), ValueError, r"L = 4 output positions; got \(1, 2, 9, 5\)"),
        ({}, (2, 2, 9, 4), ValueError, r"N = 1 images"),
        ({}, (1, 3, 9, 4), ValueError, r"G groups dividing the 2 channels"),
        ({}, (1, 1, 17, 4), ValueError, r"R >= channels / G \* 9"),
        ({}, (1, 2, 9), ValueError, r"col must have the shape \(N, G, R, L\)"),
    ],
)
def test_refuses_bad_arguments(change, col_shape, error, match):
    x = numpy.zeros((1, 2, 4, 4), numpy.float32)
    col = numpy.zeros(col_shape, numpy.float32)
    args = {**GOOD, **change}
    with pytest.raises(error, match=match):
        _ops.im2col(x, *args.values(), col)
    with pytest.raises(error, match=match.replace("im2col", "col2im")):
        _ops.col2im(col, *args.values(), x)


def test_refuses_a_wrong_argument_count():
    with pytest.raises(TypeError, match=r"chainer_cpu_kernels.im2col takes 7 arguments, got 2"):
        _ops.im2col(numpy.zeros((1, 1, 2, 2)), (1, 1))
