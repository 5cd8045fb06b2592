import math

import numpy
import pytest

import chainer.functions as F
from chainer import testing

BACKENDS = [{}, {"use_cuda": True}]


def naive_level(x, bins):
    """Max over the bins of one pyramid level: window ceil(size / bins), stride the window,
    the remainder split as -inf padding, windows up to the end (cover_all)."""
    n, c, h, w = x.shape
    kh, kw = math.ceil(h / bins), math.ceil(w / bins)
    ph, pw = (kh * bins - h) // 2, (kw * bins - w) // 2
    oh = (h + 2 * ph - kh + kh - 1) // kh + 1
    ow = (w + 2 * pw - kw + kw - 1) // kw + 1
    padded = numpy.full((n, c, oh * kh + 2 * ph + kh, ow * kw + 2 * pw + kw), -numpy.inf)
    padded[:, :, ph : ph + h, pw : pw + w] = x
    out = numpy.empty((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            out[:, :, i, j] = padded[:, :, i * kh : (i + 1) * kh, j * kw : (j + 1) * kw].max(axis=(2, 3))
    return out.reshape(n, -1)


@testing.parameterize(
    *testing.product(
        {
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
            "case": [((2, 2, 4, 4), 3), ((1, 3, 5, 7), 2), ((1, 2, 3, 3), 1)],
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestSpatialPyramidPooling2D(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.height = self.case
        if self.dtype == numpy.float16:
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        values = numpy.random.permutation(int(numpy.prod(self.shape))).reshape(self.shape)
        return ((values * 0.25 - 3).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.spatial_pyramid_pooling_2d(inputs[0], self.height, "max"),)

    def forward_expected(self, inputs):
        x = inputs[0].astype(numpy.float64)
        levels = [naive_level(x, 2**level) for level in range(self.height)]
        return (numpy.concatenate(levels, axis=1).reshape(len(x), -1, 1, 1).astype(self.dtype),)


def test_output_length_is_fixed():
    for size in [(8, 8), (9, 13)]:
        y = F.spatial_pyramid_pooling_2d(numpy.random.rand(2, 3, *size).astype("f"), 3, "max")
        assert y.shape == (2, 3 * (1 + 4 + 16), 1, 1)


def test_rejects_unsupported_pooling():
    with pytest.raises(ValueError, match=r"spatial_pyramid_pooling_2d: unsupported pooling 'average'"):
        F.spatial_pyramid_pooling_2d(numpy.ones((1, 1, 4, 4), "f"), 2, "average")


def test_rejects_bad_height():
    with pytest.raises(ValueError, match=r"pyramid_height must be a positive int"):
        F.spatial_pyramid_pooling_2d(numpy.ones((1, 1, 4, 4), "f"), 0, "max")


def test_pooling_must_be_named():
    with pytest.raises(ValueError, match=r"spatial_pyramid_pooling_2d: pooling must be given"):
        F.spatial_pyramid_pooling_2d(numpy.ones((1, 1, 4, 4), "f"), 2)
