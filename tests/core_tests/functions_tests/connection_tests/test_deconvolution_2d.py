import numpy
import pytest
from _conv_testlib import (
    BACKENDS,
    check_forward_and_gradient,
    naive_deconvolution,
    split_inputs,
    uniform_inputs,
    use_tolerances,
)

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

CASES = [
    # x shape, W shape, stride, pad, outsize, dilate, groups, bias
    ((2, 3, 3, 2), (3, 2, 3, 3), 1, 0, None, 1, 1, True),
    ((2, 3, 3, 3), (3, 2, 3, 2), 1, 1, None, 1, 1, False),
    ((1, 2, 3, 2), (2, 3, 2, 3), (2, 3), (1, 0), None, 1, 1, True),
    ((1, 2, 3, 2), (2, 3, 3, 2), 2, 1, (6, 3), 1, 1, True),
    ((1, 4, 2, 3), (4, 1, 2, 2), 2, 0, None, (2, 1), 2, True),
    ((1, 2, 3, 3), (2, 2, 2, 2), 1, 2, None, 2, 1, False),
    # more output than input channels at unit stride: the flipped-kernel path
    ((2, 2, 3, 3), (2, 3, 3, 2), 1, (1, 0), None, 1, 1, True),
    # unit stride on rows of 8+: the row-merged scatter
    ((1, 2, 3, 8), (2, 2, 3, 3), 1, 1, None, 1, 1, True),
    ((1, 4, 2, 9), (4, 1, 2, 3), 1, (0, 1), None, (1, 1), 2, False),
]


@testing.parameterize(
    *testing.product(
        {
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
            "case": CASES,
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestDeconvolution2D(testing.FunctionTestCase):
    def setUp(self):
        (self.x_shape, self.w_shape, self.stride, self.pad, self.outsize, self.dilate, self.groups, self.bias) = (
            self.case
        )
        use_tolerances(self)

    def generate_inputs(self):
        bias_size = self.w_shape[1] * self.groups if self.bias else None
        return uniform_inputs(self.dtype, self.x_shape, self.w_shape, bias_size)

    def forward(self, inputs, device):
        x, W, b = split_inputs(inputs)
        y = F.deconvolution_2d(x, W, b, self.stride, self.pad, self.outsize, dilate=self.dilate, groups=self.groups)
        return (y,)

    def forward_expected(self, inputs):
        y = naive_deconvolution(*split_inputs(inputs), self.stride, self.pad, self.dilate, self.groups, self.outsize)
        return (y.astype(self.dtype),)


@pytest.mark.parametrize("case", CASES)
def test_deconvolution_2d_with_compiled_kernels_matches_naive_loops(compiled_cpu_kernels, case):
    # The cases above through chainer-cpu-kernels (the forward scatters with col2im, or is
    # a convolution with the flipped kernel through im2col): forward in float32 and
    # float64 and the float64 gradient.
    x_shape, w_shape, stride, pad, outsize, dilate, groups, bias = case

    def deconv(x, W, b):
        return F.deconvolution_2d(x, W, b, stride, pad, outsize, dilate=dilate, groups=groups)

    rng = numpy.random.RandomState(6)
    x, W, b = (rng.uniform(-1, 1, shape) for shape in (x_shape, w_shape, w_shape[1] * groups))
    expected = naive_deconvolution(x, W, b, stride, pad, dilate, groups, outsize)
    check_forward_and_gradient(deconv, (x, W, b), expected, rng)
    assert compiled_cpu_kernels["im2col"] > 0
    if x_shape[1] >= w_shape[1] * groups or stride != 1:
        assert compiled_cpu_kernels["col2im"] > 0


def test_outsize_range():
    x = numpy.ones((1, 1, 3, 3), numpy.float32)
    W = numpy.ones((1, 1, 3, 3), numpy.float32)
    # stride 2: sizes 7 (exact) and 8 (one more row/column) convolve back to 3.
    assert F.deconvolution_2d(x, W, stride=2).shape == (1, 1, 7, 7)
    assert F.deconvolution_2d(x, W, stride=2, outsize=(8, 7)).shape == (1, 1, 8, 7)
    with pytest.raises(type_check.InvalidType, match=r"Deconvolution2DFunction[\s\S]*<= x.shape\[2\] <="):
        F.deconvolution_2d(x, W, stride=2, outsize=(10, 7))


def test_backward_with_mixed_outsize_axes():
    # outsize exact on one axis and "cover_all" on the other: the gradient keeps x's shape.

    x = chainer.Variable(numpy.random.rand(1, 1, 3, 3).astype(numpy.float64))
    W = chainer.Variable(numpy.random.rand(1, 1, 3, 3).astype(numpy.float64))
    y = F.deconvolution_2d(x, W, stride=2, outsize=(8, 7))
    F.sum(y * y).backward()
    assert x.grad.shape == x.shape and W.grad.shape == W.shape


def test_rejects_channel_mismatch():
    with pytest.raises(type_check.InvalidType, match=r"x.shape\[1\] == W.shape\[0\]"):
        F.deconvolution_2d(numpy.ones((1, 3, 2, 2), numpy.float32), numpy.ones((2, 1, 2, 2), numpy.float32))


def test_rejects_wrong_ndim():
    with pytest.raises(type_check.InvalidType, match=r"x.ndim == 4"):
        F.deconvolution_2d(numpy.ones((1, 3, 2), numpy.float32), numpy.ones((3, 1, 2, 2), numpy.float32))


def test_rejects_groups_not_dividing_channels():
    with pytest.raises(type_check.InvalidType, match=r"W.shape\[0\] % groups == 0"):
        F.deconvolution_2d(numpy.ones((1, 3, 2, 2), numpy.float32), numpy.ones((3, 1, 2, 2), numpy.float32), groups=2)


def test_rejects_bad_bias():
    with pytest.raises(type_check.InvalidType, match=r"b.shape\[0\] == W.shape\[1\] \* groups"):
        F.deconvolution_2d(
            numpy.ones((1, 2, 2, 2), numpy.float32),
            numpy.ones((2, 3, 2, 2), numpy.float32),
            numpy.ones(2, numpy.float32),
        )


def test_rejects_too_large_pad():
    with pytest.raises(ValueError, match=r"Deconvolution2DFunction: the output would have size"):
        F.deconvolution_2d(numpy.ones((1, 1, 1, 1), numpy.float32), numpy.ones((1, 1, 2, 2), numpy.float32), pad=1)


def test_function_node_exposes_chainer_geometry_attributes():

    x = numpy.ones((1, 2, 3, 3), numpy.float32)
    y = F.deconvolution_2d(x, chainer.Variable(numpy.ones((2, 1, 3, 3), numpy.float32)), stride=2, pad=(1, 0))
    node = y.creator
    assert type(node).__name__ == "Deconvolution2DFunction"
    assert (node.sy, node.sx, node.ph, node.pw, node.outh, node.outw) == (2, 2, 1, 0, 5, 7)
