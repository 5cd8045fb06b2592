import numpy
import pytest
from _conv_testlib import (
    BACKENDS,
    check_forward_and_gradient,
    input_gradient_flips,
    naive_convolution,
    uniform_inputs,
    use_tolerances,
)

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

CASES = [
    # (x shape, W shape, stride, pad, dilate, groups, cover_all, function)
    ((2, 3, 5), (2, 3, 3), 1, 1, 1, 1, False, "1d"),
    ((1, 4, 7), (4, 2, 2), 2, 0, 2, 2, True, "1d"),
    ((1, 2, 4, 3, 3), (2, 2, 2, 2, 2), 1, (1, 0, 1), 1, 1, False, "3d"),
    ((1, 2, 5, 4, 3), (2, 1, 2, 2, 1), (2, 1, 1), 0, (1, 2, 1), 2, True, "3d"),
    ((2, 2, 4, 3), (3, 2, 2, 2), 1, 1, 1, 1, False, "nd"),
    ((1, 2, 3, 3, 2, 3), (2, 2, 2, 2, 1, 2), 1, 0, 1, 1, False, "nd"),
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
class TestConvolutionND(testing.FunctionTestCase):
    def setUp(self):
        (self.x_shape, self.w_shape, self.stride, self.pad, self.dilate, self.groups, self.cover_all, self.fn) = (
            self.case
        )
        use_tolerances(self)

    def generate_inputs(self):
        return uniform_inputs(self.dtype, self.x_shape, self.w_shape, self.w_shape[0])

    def forward(self, inputs, device):
        x, W, b = inputs
        fn = {"1d": F.convolution_1d, "3d": F.convolution_3d, "nd": F.convolution_nd}[self.fn]
        return (fn(x, W, b, self.stride, self.pad, self.cover_all, self.dilate, self.groups),)

    def forward_expected(self, inputs):
        y = naive_convolution(*inputs, self.stride, self.pad, self.dilate, self.groups, self.cover_all)
        return (y.astype(self.dtype),)


@pytest.mark.parametrize("case", CASES)
def test_convolution_nd_with_compiled_kernels_matches_naive_loops(compiled_cpu_kernels, case):
    # The cases above through chainer-cpu-kernels: forward in float32 and float64 and the
    # float64 gradient. The kernels take one to three spatial axes and decline more.
    x_shape, w_shape, stride, pad, dilate, groups, cover_all, fn = case
    function = {"1d": F.convolution_1d, "3d": F.convolution_3d, "nd": F.convolution_nd}[fn]

    def conv(x, W, b):
        return function(x, W, b, stride, pad, cover_all, dilate, groups)

    rng = numpy.random.RandomState(5)
    x, W, b = (rng.uniform(-1, 1, shape) for shape in (x_shape, w_shape, w_shape[0]))
    expected = naive_convolution(x, W, b, stride, pad, dilate, groups, cover_all)
    check_forward_and_gradient(conv, (x, W, b), expected, rng)
    if len(x_shape) > 5:
        assert sum(compiled_cpu_kernels.values()) == 0
        return
    assert compiled_cpu_kernels["im2col"] > 0
    if not input_gradient_flips(x_shape, w_shape, stride, pad, dilate):
        assert compiled_cpu_kernels["col2im"] > 0


def test_convolution_1d_rejects_2d_input():
    with pytest.raises(ValueError, match=r"convolution_1d: x must have 1 spatial axis"):
        F.convolution_1d(numpy.ones((1, 1, 3, 3), numpy.float32), numpy.ones((1, 1, 2), numpy.float32))


def test_convolution_3d_rejects_2d_input():
    with pytest.raises(ValueError, match=r"convolution_3d: x must have 3 spatial axis"):
        F.convolution_3d(numpy.ones((1, 1, 3, 3), numpy.float32), numpy.ones((1, 1, 2, 2, 2), numpy.float32))


def test_convolution_nd_rejects_kernel_of_other_rank():
    with pytest.raises(type_check.InvalidType, match=r"ConvolutionND[\s\S]*W.ndim == 5"):
        F.convolution_nd(numpy.ones((1, 1, 3, 3, 3), numpy.float32), numpy.ones((1, 1, 2, 2), numpy.float32))


def test_convolution_nd_rejects_channel_mismatch():
    with pytest.raises(type_check.InvalidType, match=r"x.shape\[1\] == W.shape\[1\]"):
        F.convolution_nd(numpy.ones((1, 2, 3), numpy.float32), numpy.ones((1, 3, 2), numpy.float32))


def test_convolution_nd_rejects_groups_not_dividing_channels():
    with pytest.raises(type_check.InvalidType, match=r"W.shape\[0\] % groups == 0"):
        F.convolution_nd(numpy.ones((1, 4, 3), numpy.float32), numpy.ones((3, 2, 2), numpy.float32), groups=2)


def test_convolution_nd_rejects_wrong_stride_length():
    with pytest.raises(ValueError, match=r"convolution_nd: stride must be an int or a sequence of 3 ints"):
        F.convolution_nd(
            numpy.ones((1, 1, 3, 3, 3), numpy.float32), numpy.ones((1, 1, 2, 2, 2), numpy.float32), stride=(1, 1)
        )
