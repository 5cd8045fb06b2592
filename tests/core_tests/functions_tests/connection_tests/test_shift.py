import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]


def expected_shift(x, kh, kw, dy, dx):
    """Reference: channel group g of kh*kw groups reads x shifted by its kernel position."""
    n, c, h, w = x.shape
    groups = kh * kw
    size = c // groups
    centre = (groups - 1) // 2
    y = numpy.zeros_like(x)
    for ch in range(c):
        g = min(ch // size, groups - 1)
        pos = {centre: groups - 1, groups - 1: centre}.get(g, g)
        oy = (pos // kw - kh // 2) * dy
        ox = (pos % kw - kw // 2) * dx
        for i in range(h):
            for j in range(w):
                if 0 <= i + oy < h and 0 <= j + ox < w:
                    y[:, ch, i, j] = x[:, ch, i + oy, j + ox]
    return y


@testing.parameterize(
    *testing.product(
        {
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
            "case": [((1, 9, 4, 4), 3, 1), ((2, 11, 5, 4), (3, 1), (2, 1)), ((1, 10, 6, 6), 3, 2)],
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestShift(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.ksize, self.dilate = self.case
        self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2} if self.dtype == numpy.float16 else {}
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.shift(inputs[0], self.ksize, self.dilate),)

    def forward_expected(self, inputs):
        kh, kw = (self.ksize, self.ksize) if isinstance(self.ksize, int) else self.ksize
        dy, dx = (self.dilate, self.dilate) if isinstance(self.dilate, int) else self.dilate
        return (expected_shift(inputs[0], kh, kw, dy, dx),)


def test_rejects_too_few_channels():
    with pytest.raises(type_check.InvalidType, match=r"Shift[\s\S]*x.shape\[1\] >= kh \* kw"):
        F.shift(numpy.ones((1, 8, 3, 3), "f"), 3)


def test_rejects_even_kernel():
    with pytest.raises(ValueError, match=r"shift: ksize must be odd"):
        F.shift(numpy.ones((1, 8, 3, 3), "f"), 2)


def test_rejects_wrong_ndim():
    with pytest.raises(type_check.InvalidType, match=r"x.ndim == 4"):
        F.shift(numpy.ones((9, 3, 3), "f"))
