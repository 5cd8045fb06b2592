import numpy
import pytest
from _conv_testlib import BACKENDS, uniform_inputs, use_tolerances
from scipy import signal

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check


def dilate_kernel(w, dy, dx):
    """Insert zeros between kernel taps: a dilated kernel as a dense one."""
    kh, kw = w.shape[-2:]
    out = numpy.zeros(w.shape[:-2] + ((kh - 1) * dy + 1, (kw - 1) * dx + 1), w.dtype)
    out[..., ::dy, ::dx] = w
    return out


@testing.parameterize(
    *testing.product(
        {
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
            "case": [
                # x shape, W shape, stride, pad, dilate
                ((2, 2, 6, 5), (3, 2, 2, 2), 1, 0, 2),
                ((1, 2, 7, 6), (2, 2, 3, 2), (2, 1), (2, 1), (2, 3)),
            ],
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestDilatedConvolution2D(testing.FunctionTestCase):
    def setUp(self):
        self.x_shape, self.w_shape, self.stride, self.pad, self.dilate = self.case
        use_tolerances(self)

    def generate_inputs(self):
        return uniform_inputs(self.dtype, self.x_shape, self.w_shape, self.w_shape[0])

    def forward(self, inputs, device):
        x, W, b = inputs
        return (F.dilated_convolution_2d(x, W, b, self.stride, self.pad, self.dilate),)

    def forward_expected(self, inputs):
        x, W, b = (a.astype(numpy.float64) for a in inputs)
        pair = lambda v: (v, v) if isinstance(v, int) else v
        (sy, sx), (ph, pw), (dy, dx) = pair(self.stride), pair(self.pad), pair(self.dilate)
        xp = numpy.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
        Wd = dilate_kernel(W, dy, dx)
        y = numpy.array(
            [
                [
                    sum(signal.correlate2d(xp[n, c], Wd[o, c], mode="valid") for c in range(x.shape[1]))
                    for o in range(W.shape[0])
                ]
                for n in range(x.shape[0])
            ]
        )[:, :, ::sy, ::sx]
        y += b.reshape(1, -1, 1, 1)
        return (y.astype(self.dtype),)


def test_rejects_channel_mismatch():
    with pytest.raises(type_check.InvalidType, match=r"x.shape\[1\] == W.shape\[1\]"):
        F.dilated_convolution_2d(numpy.ones((1, 2, 5, 5), "f"), numpy.ones((1, 3, 2, 2), "f"), dilate=2)
