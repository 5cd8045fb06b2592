import itertools

import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
FORWARD_TOL = {
    numpy.float16: {"atol": 5e-3, "rtol": 5e-2},
    numpy.float32: {"atol": 1e-5, "rtol": 1e-4},
    numpy.float64: {"atol": 1e-10, "rtol": 1e-8},
}
BACKWARD_TOL = {
    numpy.float16: {"atol": 5e-2, "rtol": 5e-2},
    numpy.float32: {"atol": 1e-3, "rtol": 1e-3},
    numpy.float64: {"atol": 1e-7, "rtol": 1e-6},
}


def naive_deconvolution(x, W, b, stride, pad, dilate, groups, outsize):
    """Transposed convolution by explicit loops over input positions: each input
    element scatters its kernel onto the (padded) output, which is then cropped."""
    x = x.astype(numpy.float64)
    W = W.astype(numpy.float64)
    nd = x.ndim - 2
    n, cin = x.shape[:2]
    cout_g = W.shape[1]
    cin_g = cin // groups
    ksize = W.shape[2:]
    if outsize is None:
        outsize = tuple(
            s * (m - 1) + (k - 1) * d + 1 - 2 * p for m, k, s, p, d in zip(x.shape[2:], ksize, stride, pad, dilate)
        )
    full = tuple(
        max(s * (m - 1) + (k - 1) * d + 1, p + o)
        for m, k, s, p, d, o in zip(x.shape[2:], ksize, stride, pad, dilate, outsize)
    )
    y = numpy.zeros((n, cout_g * groups) + full)
    for pos in itertools.product(*(range(m) for m in x.shape[2:])):
        window = tuple(slice(i * s, i * s + (k - 1) * d + 1, d) for i, s, k, d in zip(pos, stride, ksize, dilate))
        for g in range(groups):
            contribution = numpy.tensordot(
                x[(slice(None), slice(g * cin_g, (g + 1) * cin_g)) + pos], W[g * cin_g : (g + 1) * cin_g], (1, 0)
            )
            y[(slice(None), slice(g * cout_g, (g + 1) * cout_g)) + window] += contribution
    y = y[(slice(None), slice(None)) + tuple(slice(p, p + o) for p, o in zip(pad, outsize))]
    if b is not None:
        y = y + b.reshape((1, -1) + (1,) * nd)
    return y


def as_tuple(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v)


@testing.parameterize(
    *testing.product(
        {
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
            "case": [
                # x shape, W shape, stride, pad, outsize, dilate, groups, function
                ((2, 3, 3), (3, 2, 3), 1, 1, None, 1, 1, "1d"),
                ((1, 4, 3), (4, 1, 2), 2, 0, (7,), 2, 2, "1d"),
                ((1, 2, 2, 2, 2), (2, 2, 2, 2, 2), 1, 0, None, 1, 1, "3d"),
                ((1, 2, 2, 3, 2), (2, 1, 2, 1, 2), (2, 1, 2), (0, 0, 1), None, 1, 1, "3d"),
                ((1, 2, 3, 2), (2, 2, 2, 2), 2, 1, (5, 3), 1, 1, "nd"),
            ],
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestDeconvolutionND(testing.FunctionTestCase):
    def setUp(self):
        (self.x_shape, self.w_shape, self.stride, self.pad, self.outsize, self.dilate, self.groups, self.fn) = self.case
        self.check_forward_options = FORWARD_TOL[self.dtype]
        self.check_backward_options = BACKWARD_TOL[self.dtype]
        self.check_double_backward_options = BACKWARD_TOL[self.dtype]

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, self.x_shape).astype(self.dtype)
        W = numpy.random.uniform(-1, 1, self.w_shape).astype(self.dtype)
        b = numpy.random.uniform(-1, 1, self.w_shape[1] * self.groups).astype(self.dtype)
        return x, W, b

    def forward(self, inputs, device):
        x, W, b = inputs
        fn = {"1d": F.deconvolution_1d, "3d": F.deconvolution_3d, "nd": F.deconvolution_nd}[self.fn]
        return (fn(x, W, b, self.stride, self.pad, self.outsize, self.dilate, self.groups),)

    def forward_expected(self, inputs):
        x, W, b = inputs
        nd = x.ndim - 2
        y = naive_deconvolution(
            x,
            W,
            b,
            as_tuple(self.stride, nd),
            as_tuple(self.pad, nd),
            as_tuple(self.dilate, nd),
            self.groups,
            self.outsize,
        )
        return (y.astype(self.dtype),)


def test_deconvolution_1d_rejects_2d_input():
    with pytest.raises(ValueError, match=r"deconvolution_1d: x must have 1 spatial axis"):
        F.deconvolution_1d(numpy.ones((1, 1, 3, 3), numpy.float32), numpy.ones((1, 1, 2), numpy.float32))


def test_deconvolution_3d_rejects_1d_input():
    with pytest.raises(ValueError, match=r"deconvolution_3d: x must have 3 spatial axis"):
        F.deconvolution_3d(numpy.ones((1, 1, 3), numpy.float32), numpy.ones((1, 1, 2, 2, 2), numpy.float32))


def test_deconvolution_nd_rejects_channel_mismatch():
    with pytest.raises(type_check.InvalidType, match=r"DeconvolutionND[\s\S]*x.shape\[1\] == W.shape\[0\]"):
        F.deconvolution_nd(numpy.ones((1, 2, 3), numpy.float32), numpy.ones((3, 1, 2), numpy.float32))


def test_deconvolution_nd_rejects_inconsistent_outsize():
    with pytest.raises(type_check.InvalidType, match=r"x.shape\[2\]"):
        F.deconvolution_nd(numpy.ones((1, 1, 3), numpy.float32), numpy.ones((1, 1, 2), numpy.float32), outsize=(9,))


def test_deconvolution_nd_is_the_adjoint_of_convolution_nd():
    rng = numpy.random.RandomState(1)
    x = rng.randn(2, 3, 5, 4, 3)
    W = rng.randn(4, 3, 2, 3, 2)
    y = F.convolution_nd(x, W, stride=(2, 1, 2), pad=(1, 0, 1), dilate=(1, 1, 2)).array
    g = rng.randn(*y.shape)
    back = F.deconvolution_nd(g, W, stride=(2, 1, 2), pad=(1, 0, 1), outsize=x.shape[2:], dilate=(1, 1, 2)).array
    numpy.testing.assert_allclose((y * g).sum(), (x * back).sum(), rtol=1e-10)


@pytest.mark.parametrize(
    "x_shape, w_shape, pad, dilate, groups, flat",
    [
        # unit stride: the whole-batch channel-major GEMM and one shifted add per offset
        ((3, 4, 6, 5), (4, 3, 3, 3), (1, 1), (1, 1), 1, True),
        ((3, 4, 5, 6), (4, 2, 2, 3), (0, 2), (2, 1), 2, True),
        ((2, 3, 3, 4, 3), (3, 2, 2, 2, 2), (1, 0, 1), (1, 2, 1), 1, True),
        # unit stride, but padding more than triples the columns, or a 1x1 kernel
        ((2, 3, 2, 2), (3, 2, 3, 3), (0, 0), (2, 2), 1, False),
        ((2, 3, 4, 4), (3, 5, 1, 1), (0, 0), (1, 1), 1, False),
    ],
)
@pytest.mark.parametrize("chunk", [None, 1, 2])  # the whole batch at once, or so many images per chunk
def test_unit_stride_deconvolution_paths_match_naive_loops(
    monkeypatch, x_shape, w_shape, pad, dilate, groups, flat, chunk
):
    from chainer.functions.connection import _conv_kernels

    if chunk is not None:
        monkeypatch.setattr(_conv_kernels, "batch_chunk", lambda xp, n, nbytes: min(n, chunk))
    calls = []
    original = _conv_kernels._deconv_flat
    monkeypatch.setattr(_conv_kernels, "_deconv_flat", lambda *a: calls.append(1) or original(*a))
    rng = numpy.random.RandomState(2)
    x, W, b = rng.randn(*x_shape), rng.randn(*w_shape), rng.randn(w_shape[1] * groups)
    nd = len(x_shape) - 2
    y = F.deconvolution_nd(x, W, b, 1, pad, None, dilate, groups).array
    expected = naive_deconvolution(x, W, b, (1,) * nd, pad, dilate, groups, None)
    numpy.testing.assert_allclose(y, expected, rtol=1e-12, atol=1e-12)
    assert bool(calls) == flat
