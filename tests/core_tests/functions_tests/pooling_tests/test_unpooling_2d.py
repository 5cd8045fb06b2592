import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]


def naive_unpooling(x, ksize, stride, pad, outsize, cover_all):
    """Every input pixel copied onto its window of the padded output, then cropped."""
    (kh, kw), (sy, sx), (ph, pw) = ksize, stride, pad
    n, c, h, w = x.shape
    if outsize is None:
        outsize = (
            sy * (h - 1) + kh - 2 * ph - (sy - 1 if cover_all else 0),
            sx * (w - 1) + kw - 2 * pw - (sx - 1 if cover_all else 0),
        )
    big = numpy.zeros((n, c, sy * h + kh + 2 * ph, sx * w + kw + 2 * pw))
    for i in range(h):
        for j in range(w):
            big[:, :, i * sy : i * sy + kh, j * sx : j * sx + kw] += x[:, :, i : i + 1, j : j + 1]
    return big[:, :, ph : ph + outsize[0], pw : pw + outsize[1]]


def pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


@testing.parameterize(
    *testing.product(
        {
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
            "case": [
                # x shape, ksize, stride, pad, outsize, cover_all
                ((2, 3, 2, 3), 2, None, 0, None, True),
                ((1, 2, 3, 2), 2, None, 0, None, False),
                ((1, 2, 3, 3), 3, 2, 1, None, False),
                ((1, 2, 3, 3), 3, 2, 1, (5, 5), True),
                ((1, 1, 3, 2), (2, 3), (1, 2), (1, 0), None, False),
            ],
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestUnpooling2D(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.ksize, self.stride, self.pad, self.outsize, self.cover_all = self.case
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.unpooling_2d(inputs[0], self.ksize, self.stride, self.pad, self.outsize, self.cover_all),)

    def forward_expected(self, inputs):
        stride = self.ksize if self.stride is None else self.stride
        y = naive_unpooling(
            inputs[0].astype(numpy.float64),
            pair(self.ksize),
            pair(stride),
            pair(self.pad),
            self.outsize,
            self.cover_all,
        )
        return (y.astype(self.dtype),)


def test_unpooling_inverts_the_pooling_size():
    x = numpy.ones((1, 1, 5, 5), numpy.float32)
    pooled = F.max_pooling_2d(x, 2)  # cover_all: 3x3
    assert F.unpooling_2d(pooled, 2, outsize=(5, 5)).shape == (1, 1, 5, 5)
    assert F.unpooling_2d(pooled, 2).shape == (1, 1, 5, 5)


def test_rejects_inconsistent_outsize():
    with pytest.raises(type_check.InvalidType, match=r"Unpooling2D[\s\S]*x.shape\[2\] == "):
        F.unpooling_2d(numpy.ones((1, 1, 2, 2), numpy.float32), 2, outsize=(7, 4))


def test_rejects_wrong_ndim():
    with pytest.raises(type_check.InvalidType, match=r"x.ndim == 4"):
        F.unpooling_2d(numpy.ones((1, 2, 2), numpy.float32), 2)
