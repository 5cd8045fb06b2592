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


def naive_convolution(x, W, b, stride, pad, dilate, groups, cover_all):
    """Cross-correlation by explicit loops over output positions (float64)."""
    x = x.astype(numpy.float64)
    W = W.astype(numpy.float64)
    nd = x.ndim - 2
    n, c = x.shape[:2]
    o = W.shape[0]
    ksize = W.shape[2:]
    outsize = []
    for size, k, s, p, d in zip(x.shape[2:], ksize, stride, pad, dilate):
        extra = s - 1 if cover_all else 0
        outsize.append((size + 2 * p - (k - 1) * d - 1 + extra) // s + 1)
    padded = numpy.pad(x, [(0, 0), (0, 0)] + [(p, p + s) for p, s in zip(pad, stride)])
    y = numpy.zeros((n, o) + tuple(outsize))
    cg, og = c // groups, o // groups
    axes = tuple(range(1, nd + 2))
    for pos in itertools.product(*(range(m) for m in outsize)):
        window = tuple(slice(i * s, i * s + (k - 1) * d + 1, d) for i, s, k, d in zip(pos, stride, ksize, dilate))
        patch = padded[(slice(None), slice(None)) + window]
        for g in range(groups):
            y[(slice(None), slice(g * og, (g + 1) * og)) + pos] = numpy.tensordot(
                patch[:, g * cg : (g + 1) * cg], W[g * og : (g + 1) * og], (axes, axes)
            )
    if b is not None:
        y += b.reshape((1, o) + (1,) * nd)
    return y


def as_tuple(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v)


@testing.parameterize(
    *testing.product(
        {
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
            "case": [
                # (x shape, W shape, stride, pad, dilate, groups, cover_all, function)
                ((2, 3, 5), (2, 3, 3), 1, 1, 1, 1, False, "1d"),
                ((1, 4, 7), (4, 2, 2), 2, 0, 2, 2, True, "1d"),
                ((1, 2, 4, 3, 3), (2, 2, 2, 2, 2), 1, (1, 0, 1), 1, 1, False, "3d"),
                ((1, 2, 5, 4, 3), (2, 1, 2, 2, 1), (2, 1, 1), 0, (1, 2, 1), 2, True, "3d"),
                ((2, 2, 4, 3), (3, 2, 2, 2), 1, 1, 1, 1, False, "nd"),
                ((1, 2, 3, 3, 2, 3), (2, 2, 2, 2, 1, 2), 1, 0, 1, 1, False, "nd"),
            ],
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestConvolutionND(testing.FunctionTestCase):
    def setUp(self):
        (self.x_shape, self.w_shape, self.stride, self.pad, self.dilate, self.groups, self.cover_all, self.fn) = (
            self.case
        )
        self.check_forward_options = FORWARD_TOL[self.dtype]
        self.check_backward_options = BACKWARD_TOL[self.dtype]
        self.check_double_backward_options = BACKWARD_TOL[self.dtype]

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, self.x_shape).astype(self.dtype)
        W = numpy.random.uniform(-1, 1, self.w_shape).astype(self.dtype)
        b = numpy.random.uniform(-1, 1, self.w_shape[0]).astype(self.dtype)
        return x, W, b

    def forward(self, inputs, device):
        x, W, b = inputs
        fn = {"1d": F.convolution_1d, "3d": F.convolution_3d, "nd": F.convolution_nd}[self.fn]
        return (fn(x, W, b, self.stride, self.pad, self.cover_all, self.dilate, self.groups),)

    def forward_expected(self, inputs):
        x, W, b = inputs
        nd = x.ndim - 2
        y = naive_convolution(
            x,
            W,
            b,
            as_tuple(self.stride, nd),
            as_tuple(self.pad, nd),
            as_tuple(self.dilate, nd),
            self.groups,
            self.cover_all,
        )
        return (y.astype(self.dtype),)


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
