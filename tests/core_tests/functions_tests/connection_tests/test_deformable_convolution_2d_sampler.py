import _conv_testlib
import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

# The shared convolution tolerances but for the entries below. In float16 the sampler
# computes its sampling positions and bilinear weights in float16 too, so the tolerances
# are looser there.
FORWARD_TOL = {**_conv_testlib.FORWARD_TOL, numpy.float16: {"atol": 1e-2, "rtol": 5e-2}}
BACKWARD_TOL = {
    **_conv_testlib.BACKWARD_TOL,
    numpy.float16: {"atol": 1e-1, "rtol": 1e-1},
    # The function is a polynomial of degree 4 in (x, offset, W): central differences of
    # its gradient keep an O(eps^2) error.
    numpy.float64: {"atol": 1e-4, "rtol": 1e-4},
}


def bilinear_sample(img, y, x):
    """Value of ``img`` (H, W) at a fractional position, zero outside."""
    h, w = img.shape
    y0, x0 = int(numpy.floor(y)), int(numpy.floor(x))
    total = 0.0
    for yy, wy in ((y0, 1 - (y - y0)), (y0 + 1, y - y0)):
        for xx, wx in ((x0, 1 - (x - x0)), (x0 + 1, x - x0)):
            if 0 <= yy < h and 0 <= xx < w:
                total += wy * wx * img[yy, xx]
    return total


@testing.parameterize(
    *testing.product(
        {
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
            "case": [
                # x shape, W shape, stride, pad
                ((1, 2, 4, 3), (2, 2, 2, 2), 1, 0),
                ((2, 1, 4, 4), (2, 1, 3, 2), (2, 1), (1, 1)),
            ],
        }
    )
)
@testing.inject_backend_tests(None, _conv_testlib.BACKENDS)
class TestDeformableConvolution2DSampler(testing.FunctionTestCase):
    def setUp(self):
        self.x_shape, self.w_shape, self.stride, self.pad = self.case
        pair = lambda v: (v, v) if isinstance(v, int) else v
        self.sy, self.sx = pair(self.stride)
        self.ph, self.pw = pair(self.pad)
        _, _, kh, kw = self.w_shape
        self.out_h = (self.x_shape[2] + 2 * self.ph - kh) // self.sy + 1
        self.out_w = (self.x_shape[3] + 2 * self.pw - kw) // self.sx + 1
        self.check_forward_options = FORWARD_TOL[self.dtype]
        self.check_backward_options = BACKWARD_TOL[self.dtype]
        self.check_double_backward_options = BACKWARD_TOL[self.dtype]

    def generate_inputs(self):
        _, _, kh, kw = self.w_shape
        x = numpy.random.uniform(-1, 1, self.x_shape).astype(self.dtype)
        # Offsets away from whole numbers: bilinear interpolation has kinks there.
        shape = (self.x_shape[0], 2 * kh * kw, self.out_h, self.out_w)
        offset = numpy.random.randint(-2, 2, shape) + numpy.random.uniform(0.2, 0.8, shape)
        W = numpy.random.uniform(-1, 1, self.w_shape).astype(self.dtype)
        b = numpy.random.uniform(-1, 1, self.w_shape[0]).astype(self.dtype)
        return x, offset.astype(self.dtype), W, b

    def forward(self, inputs, device):
        x, offset, W, b = inputs
        return (F.deformable_convolution_2d_sampler(x, offset, W, b, self.stride, self.pad),)

    def forward_expected(self, inputs):
        x, offset, W, b = (a.astype(numpy.float64) for a in inputs)
        n, c = x.shape[:2]
        o, _, kh, kw = W.shape
        taps = kh * kw
        y = numpy.zeros((n, o, self.out_h, self.out_w))
        for b_ in range(n):
            for i in range(self.out_h):
                for j in range(self.out_w):
                    col = numpy.zeros((c, kh, kw))
                    for p in range(kh):
                        for q in range(kw):
                            k = p * kw + q
                            yy = i * self.sy - self.ph + p + offset[b_, taps + k, i, j]
                            xx = j * self.sx - self.pw + q + offset[b_, k, i, j]
                            for ch in range(c):
                                col[ch, p, q] = bilinear_sample(x[b_, ch], yy, xx)
                    y[b_, :, i, j] = numpy.tensordot(W, col, 3) + b
        return (y.astype(self.dtype),)


def test_zero_offset_is_a_convolution():
    rng = numpy.random.RandomState(0)
    x = rng.randn(2, 3, 5, 4)
    W = rng.randn(4, 3, 3, 2)
    offset = numpy.zeros((2, 12, 2, 5))
    y = F.deformable_convolution_2d_sampler(x, offset, W, stride=(2, 1), pad=(0, 1))
    numpy.testing.assert_allclose(y.array, F.convolution_2d(x, W, stride=(2, 1), pad=(0, 1)).array, atol=1e-12)


def test_rejects_offset_with_wrong_channels():
    with pytest.raises(type_check.InvalidType, match=r"offset.shape\[1\] == 2 \* W.shape\[2\] \* W.shape\[3\]"):
        F.deformable_convolution_2d_sampler(
            numpy.ones((1, 1, 3, 3), "f"), numpy.zeros((1, 4, 2, 2), "f"), numpy.ones((1, 1, 2, 2), "f")
        )


def test_rejects_offset_with_wrong_size():
    with pytest.raises(type_check.InvalidType, match=r"offset.shape\[2\] == out_h"):
        F.deformable_convolution_2d_sampler(
            numpy.ones((1, 1, 3, 3), "f"), numpy.zeros((1, 8, 3, 2), "f"), numpy.ones((1, 1, 2, 2), "f")
        )
