import numpy
import pytest
from _conv_testlib import BACKENDS, split_inputs, uniform_inputs, use_tolerances
from scipy import signal

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check


@testing.parameterize(
    *testing.product(
        {
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
            "case": [
                # x shape, W shape (multiplier, C, kh, kw), stride, pad, bias
                ((2, 3, 4, 4), (2, 3, 3, 3), 1, 1, True),
                ((1, 2, 5, 4), (1, 2, 2, 3), (2, 1), 0, False),
                ((1, 2, 3, 3), (3, 2, 2, 2), 2, (1, 0), True),
            ],
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestDepthwiseConvolution2D(testing.FunctionTestCase):
    def setUp(self):
        self.x_shape, self.w_shape, self.stride, self.pad, self.bias = self.case
        use_tolerances(self)

    def generate_inputs(self):
        bias_size = self.w_shape[0] * self.w_shape[1] if self.bias else None
        return uniform_inputs(self.dtype, self.x_shape, self.w_shape, bias_size)

    def forward(self, inputs, device):
        x, W, b = split_inputs(inputs)
        return (F.depthwise_convolution_2d(x, W, b, self.stride, self.pad),)

    def forward_expected(self, inputs):
        x, W = (a.astype(numpy.float64) for a in inputs[:2])
        sy, sx = (self.stride, self.stride) if isinstance(self.stride, int) else self.stride
        ph, pw = (self.pad, self.pad) if isinstance(self.pad, int) else self.pad
        xp = numpy.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
        m, c = W.shape[:2]
        out = []
        for n in range(x.shape[0]):
            maps = []
            for ci in range(c):
                for mi in range(m):
                    maps.append(signal.correlate2d(xp[n, ci], W[mi, ci], mode="valid")[::sy, ::sx])
            out.append(maps)
        y = numpy.array(out)
        if self.bias:
            y += inputs[2].reshape(1, -1, 1, 1)
        return (y.astype(self.dtype),)


def test_rejects_channel_mismatch():
    with pytest.raises(type_check.InvalidType, match=r"DepthwiseConvolution2D[\s\S]*x.shape\[1\] == W.shape\[1\]"):
        F.depthwise_convolution_2d(numpy.ones((1, 3, 4, 4), numpy.float32), numpy.ones((2, 2, 2, 2), numpy.float32))


def test_rejects_bad_bias():
    with pytest.raises(type_check.InvalidType, match=r"b.shape\[0\] == W.shape\[0\] \* W.shape\[1\]"):
        F.depthwise_convolution_2d(
            numpy.ones((1, 3, 4, 4), numpy.float32), numpy.ones((2, 3, 2, 2), numpy.float32), numpy.ones(3, "f")
        )
