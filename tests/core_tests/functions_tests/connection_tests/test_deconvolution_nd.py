import numpy
import pytest
from _conv_testlib import BACKENDS, naive_deconvolution, uniform_inputs, use_tolerances

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check


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
        use_tolerances(self)

    def generate_inputs(self):
        return uniform_inputs(self.dtype, self.x_shape, self.w_shape, self.w_shape[1] * self.groups)

    def forward(self, inputs, device):
        x, W, b = inputs
        fn = {"1d": F.deconvolution_1d, "3d": F.deconvolution_3d, "nd": F.deconvolution_nd}[self.fn]
        return (fn(x, W, b, self.stride, self.pad, self.outsize, self.dilate, self.groups),)

    def forward_expected(self, inputs):
        y = naive_deconvolution(*inputs, self.stride, self.pad, self.dilate, self.groups, self.outsize)
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
    monkeypatch, numpy_cpu_code, x_shape, w_shape, pad, dilate, groups, flat, chunk
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


def test_node_constructors_take_ints_or_sequences():
    # As in Chainer, the (de)convolution nodes take ints (repeated over the axes) or
    # sequences, and default to stride 1 and no padding.
    from chainer.functions.connection import convolution_2d, convolution_nd, deconvolution_2d, deconvolution_nd

    node = deconvolution_nd.DeconvolutionND(1)
    assert (node.stride, node.pad, node.dilate) == ((1,), (0,), (1,))
    node = convolution_nd.ConvolutionND(3, 2, (0, 1, 0))
    assert (node.stride, node.pad, node.dilate) == ((2, 2, 2), (0, 1, 0), (1, 1, 1))
    node = convolution_2d.Convolution2DFunction(2, 1)
    assert (node.sy, node.sx, node.ph, node.pw) == (2, 2, 1, 1)
    node = deconvolution_2d.Deconvolution2DFunction(stride=(1, 3))
    assert (node.sy, node.sx, node.ph, node.pw) == (1, 3, 0, 0)
    x = numpy.ones((1, 1, 3), numpy.float32)
    W = numpy.ones((1, 1, 2), numpy.float32)
    # Transposed convolution of ones with a kernel of ones of length 2: [1, 2, 2, 1].
    numpy.testing.assert_array_equal(deconvolution_nd.DeconvolutionND(1).apply((x, W))[0].array, [[[1, 2, 2, 1]]])
    with pytest.raises(type_check.InvalidType):
        deconvolution_nd.DeconvolutionND(1).apply((x,))


def test_an_empty_output_is_both_a_value_and_an_assertion_error():
    # Chainer raised AssertionError for a padding larger than the output; ours is a
    # ValueError that is an AssertionError too.
    x = numpy.ones((2, 3, 4), numpy.float32)
    W = numpy.ones((3, 2, 2), numpy.float32)
    for error in (ValueError, AssertionError):
        with pytest.raises(error, match=r"DeconvolutionND: the output would have size \(-15,\)"):
            F.deconvolution_nd(x, W, stride=1, pad=10)
    with pytest.raises(AssertionError, match="the output would have size"):
        F.convolution_nd(x, W.transpose(1, 0, 2), pad=0, stride=1, dilate=4)
