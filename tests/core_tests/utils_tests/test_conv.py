"""Output sizes of convolution and deconvolution, against counting windows; im2col and
col2im of image batches against explicit loops and the adjoint identity."""

import itertools

import numpy
import pytest

from chainer import utils
from chainer.utils import conv, conv_nd


def _count_windows(size, k, s, p, d, cover_all):
    """Number of window positions along one axis, by enumeration."""
    extent = (k - 1) * d + 1
    padded = size + 2 * p
    if not cover_all:
        return sum(1 for start in range(0, padded, s) if start + extent <= padded)
    # cover_all: add windows (which may overhang the end) until every input is covered.
    n, covered = 0, 0
    while covered < padded:
        covered = n * s + extent
        n += 1
    return max(n, 1)


CASES = list(itertools.product([1, 4, 7, 10], [1, 2, 3], [1, 2, 3], [0, 1, 2], [1, 2]))


def test_conv_outsize_counts_the_windows():
    checked = 0
    for size, k, s, p, d in CASES:
        if size + 2 * p < (k - 1) * d + 1:
            continue  # the kernel does not fit
        case = (size, k, s, p, d)
        assert utils.get_conv_outsize(size, k, s, p, d=d) == _count_windows(size, k, s, p, d, False), case
        assert utils.get_conv_outsize(size, k, s, p, cover_all=True, d=d) == _count_windows(size, k, s, p, d, True), (
            case
        )
        checked += 1
    assert checked > 150


def test_deconv_outsize_inverts_conv_outsize():
    checked = 0
    for size, k, s, p, d in CASES:
        case = (size, k, s, p, d)
        out = utils.get_deconv_outsize(size, k, s, p, d=d)
        if out <= 0:
            continue
        # the deconvolution output is an input size whose convolution gives `size` back
        assert utils.get_conv_outsize(out, k, s, p, d=d) == size, case
        assert out == s * (size - 1) + (k - 1) * d + 1 - 2 * p, case
        out_all = utils.get_deconv_outsize(size, k, s, p, cover_all=True, d=d)
        if out_all > 0 and out_all + 2 * p >= (k - 1) * d + 1:
            assert utils.get_conv_outsize(out_all, k, s, p, cover_all=True, d=d) == size, case
        checked += 1
    assert checked > 150


def test_known_values():
    assert conv.get_conv_outsize(28, 5, 1, 0) == 24
    assert conv.get_conv_outsize(32, 3, 2, 1) == 16
    assert conv.get_conv_outsize(7, 2, 2, 0, cover_all=True) == 4
    assert conv.get_conv_outsize(7, 3, 1, 2, d=2) == 7
    assert conv.get_deconv_outsize(16, 4, 2, 1) == 32
    assert conv.get_deconv_outsize(4, 2, 2, 0, cover_all=True) == 7


def _patches_by_loops(img, ksize, stride, pad, dilate, outs, pval):
    """``col[n, c, k..., o...]`` = img at ``o * s - p + k * d`` per axis, or ``pval`` outside."""
    nd = len(ksize)
    col = numpy.full(img.shape[:2] + tuple(ksize) + tuple(outs), pval, img.dtype)
    for k in itertools.product(*(range(v) for v in ksize)):
        for o in itertools.product(*(range(v) for v in outs)):
            pos = [o[i] * stride[i] - pad[i] + k[i] * dilate[i] for i in range(nd)]
            if all(0 <= pos[i] < img.shape[2 + i] for i in range(nd)):
                col[(slice(None), slice(None)) + k + o] = img[(slice(None), slice(None)) + tuple(pos)]
    return col


@pytest.mark.parametrize(
    "kh, kw, sy, sx, ph, pw, dy, dx, cover_all",
    [(1, 1, 1, 1, 0, 0, 1, 1, False), (2, 3, 1, 2, 1, 0, 1, 2, False), (3, 2, 2, 3, 2, 1, 2, 1, True)],
)
def test_im2col_and_col2im_against_loops(kh, kw, sy, sx, ph, pw, dy, dx, cover_all):
    img = numpy.random.uniform(-1, 1, (2, 3, 7, 8)).astype(numpy.float32)
    col = conv.im2col_cpu(img, kh, kw, sy, sx, ph, pw, pval=-5, cover_all=cover_all, dy=dy, dx=dx)
    outs = (
        conv.get_conv_outsize(7, kh, sy, ph, cover_all, dy),
        conv.get_conv_outsize(8, kw, sx, pw, cover_all, dx),
    )
    expected = _patches_by_loops(img, (kh, kw), (sy, sx), (ph, pw), (dy, dx), outs, -5)
    numpy.testing.assert_array_equal(col, expected)
    assert col.flags.c_contiguous and col.flags.writeable
    # col2im is the adjoint of im2col (with 0 padding): <im2col(x), c> == <x, col2im(c)>.
    c = numpy.random.uniform(-1, 1, col.shape)
    zero_padded = conv.im2col(img.astype(numpy.float64), kh, kw, sy, sx, ph, pw, cover_all=cover_all, dy=dy, dx=dx)
    back = conv.col2im_cpu(c, sy, sx, ph, pw, 7, 8, dy=dy, dx=dx)
    assert back.shape == img.shape
    numpy.testing.assert_allclose((zero_padded * c).sum(), (img * back).sum(), rtol=1e-10)
    numpy.testing.assert_array_equal(conv.col2im(c, sy, sx, ph, pw, 7, 8, dy=dy, dx=dx), back)


def test_im2col_with_explicit_output_size():
    img = numpy.arange(16.0).reshape(1, 1, 4, 4)
    col = conv.im2col_cpu(img, 2, 2, 2, 2, 0, 0, out_h=1, out_w=2)
    assert col.shape == (1, 1, 2, 2, 1, 2)
    numpy.testing.assert_array_equal(col[0, 0, :, :, 0, 1], [[2, 3], [6, 7]])


def test_conv_helpers_check_their_device_and_sizes():
    with pytest.raises(TypeError, match="im2col_gpu: the image must be a CuPy array, got numpy.ndarray"):
        conv.im2col_gpu(numpy.ones((1, 1, 3, 3)), 2, 2, 1, 1, 0, 0)
    with pytest.raises(TypeError, match="col2im_gpu: the image must be a CuPy array"):
        conv.col2im_gpu(numpy.ones((1, 1, 2, 2, 2, 2)), 1, 1, 0, 0, 3, 3)
    with pytest.raises(ValueError, match=r"the output size \(0, 0\) is not positive"):
        conv.im2col_cpu(numpy.ones((1, 1, 3, 3)), 4, 4, 1, 1, 0, 0)


@pytest.mark.parametrize("dims", [(5,), (5, 4), (4, 3, 3)])
def test_im2col_nd_and_col2im_nd_against_loops(dims):
    nd = len(dims)
    ksize, stride, pad = (2,) * nd, (1, 2, 1)[:nd], (1, 0, 1)[:nd]
    img = numpy.random.uniform(-1, 1, (2, 2) + dims)
    col = conv_nd.im2col_nd_cpu(img, ksize, stride, pad, pval=3)
    outs = tuple(conv_nd.get_conv_outsize(d, k, s, p) for d, k, s, p in zip(dims, ksize, stride, pad))
    numpy.testing.assert_array_equal(col, _patches_by_loops(img, ksize, stride, pad, (1,) * nd, outs, 3))
    c = numpy.random.uniform(-1, 1, col.shape)
    back = conv_nd.col2im_nd(c, stride, pad, dims)
    zero_padded = conv_nd.im2col_nd(img, ksize, stride, pad)
    numpy.testing.assert_allclose((zero_padded * c).sum(), (img * back).sum(), rtol=1e-10)
    numpy.testing.assert_array_equal(conv_nd.col2im_nd_cpu(c, stride, pad, dims), back)


def test_conv_nd_ranks_must_match():
    img = numpy.ones((2, 3, 4, 3), numpy.float32)
    assert conv_nd.as_tuple(2, 3) == (2, 2, 2)
    assert conv_nd.as_tuple([1, 2], 2) == (1, 2)
    with pytest.raises(AssertionError, match=r"as_tuple: expected 3 values, got 1"):
        conv_nd.as_tuple((1,), 3)
    with pytest.raises(AssertionError):
        conv_nd.im2col_nd_cpu(img, (2,), (1, 1), (0, 0))
    col = conv_nd.im2col_nd_cpu(img, (2, 2), (1, 1), (0, 0))
    with pytest.raises(AssertionError, match=r"col must have 2 \+ 2 \* 1 axes"):
        conv_nd.col2im_nd_cpu(col, (1, 1), (0, 0), (4,))
    with pytest.raises(AssertionError, match=r"as_tuple: expected 2 values, got 1"):
        conv_nd.col2im_nd_cpu(col, (1, 1), (0,), (4, 3))
