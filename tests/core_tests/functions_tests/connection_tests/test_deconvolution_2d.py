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


def pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


@testing.parameterize(
    *testing.product(
        {
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
            "case": [
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
            ],
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestDeconvolution2D(testing.FunctionTestCase):
    def setUp(self):
        (self.x_shape, self.w_shape, self.stride, self.pad, self.outsize, self.dilate, self.groups, self.bias) = (
            self.case
        )
        self.check_forward_options = FORWARD_TOL[self.dtype]
        self.check_backward_options = BACKWARD_TOL[self.dtype]
        self.check_double_backward_options = BACKWARD_TOL[self.dtype]

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, self.x_shape).astype(self.dtype)
        W = numpy.random.uniform(-1, 1, self.w_shape).astype(self.dtype)
        if not self.bias:
            return x, W
        return x, W, numpy.random.uniform(-1, 1, self.w_shape[1] * self.groups).astype(self.dtype)

    def forward(self, inputs, device):
        x, W = inputs[:2]
        b = inputs[2] if len(inputs) == 3 else None
        y = F.deconvolution_2d(x, W, b, self.stride, self.pad, self.outsize, dilate=self.dilate, groups=self.groups)
        return (y,)

    def forward_expected(self, inputs):
        x, W = inputs[:2]
        b = inputs[2] if len(inputs) == 3 else None
        y = naive_deconvolution(
            x, W, b, pair(self.stride), pair(self.pad), pair(self.dilate), self.groups, self.outsize
        )
        return (y.astype(self.dtype),)


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
    import chainer

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
    import chainer

    x = numpy.ones((1, 2, 3, 3), numpy.float32)
    y = F.deconvolution_2d(x, chainer.Variable(numpy.ones((2, 1, 3, 3), numpy.float32)), stride=2, pad=(1, 0))
    node = y.creator
    assert type(node).__name__ == "Deconvolution2DFunction"
    assert (node.sy, node.sx, node.ph, node.pw, node.outh, node.outw) == (2, 2, 1, 0, 5, 7)
