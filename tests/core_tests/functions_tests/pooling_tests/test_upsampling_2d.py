import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]


@testing.parameterize(
    *testing.product(
        {
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
            "case": [
                # x shape, ksize, stride, pad, outsize, cover_all
                ((2, 3, 2, 3), 2, None, 0, None, True),
                ((1, 2, 3, 3), 3, 2, 1, (5, 5), True),
                ((1, 2, 3, 2), (2, 3), (1, 2), (0, 1), None, False),
            ],
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestUpsampling2D(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.ksize, self.stride, self.pad, self.outsize, self.cover_all = self.case
        kh, kw = (self.ksize, self.ksize) if isinstance(self.ksize, int) else self.ksize
        self.indexes = numpy.random.randint(0, kh * kw, self.shape).astype(numpy.int32)
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        y = F.upsampling_2d(inputs[0], self.indexes, self.ksize, self.stride, self.pad, self.outsize, self.cover_all)
        return (y,)

    def forward_expected(self, inputs):
        x = inputs[0].astype(numpy.float64)
        pair = lambda v: (v, v) if isinstance(v, int) else tuple(v)
        (kh, kw), (ph, pw) = pair(self.ksize), pair(self.pad)
        sy, sx = pair(self.ksize if self.stride is None else self.stride)
        n, c, h, w = x.shape
        outsize = self.outsize or (
            sy * (h - 1) + kh - 2 * ph - (sy - 1 if self.cover_all else 0),
            sx * (w - 1) + kw - 2 * pw - (sx - 1 if self.cover_all else 0),
        )
        big = numpy.zeros((n, c, sy * h + kh + 2 * ph, sx * w + kw + 2 * pw))
        for b in range(n):
            for ch in range(c):
                for i in range(h):
                    for j in range(w):
                        dy, dx = divmod(int(self.indexes[b, ch, i, j]), kw)
                        big[b, ch, i * sy + dy, j * sx + dx] += x[b, ch, i, j]
        return (big[:, :, ph : ph + outsize[0], pw : pw + outsize[1]].astype(self.dtype),)


def test_round_trip_with_max_pooling():
    x = numpy.random.permutation(36).reshape(1, 1, 6, 6).astype(numpy.float32)
    y, indexes = F.max_pooling_2d(x, 2, return_indices=True)
    up = F.upsampling_2d(y, indexes, 2, outsize=(6, 6)).array
    # Exactly the maxima survive, in place.
    mask = up != 0
    numpy.testing.assert_array_equal(up[mask], x[mask])
    assert mask.sum() == 9


def test_rejects_out_of_range_indexes():
    x = numpy.ones((1, 1, 2, 2), numpy.float32)
    with pytest.raises(ValueError, match=r"upsampling_2d: indexes must lie in \[0, 4\)"):
        F.upsampling_2d(x, numpy.full((1, 1, 2, 2), 4, numpy.int32), 2)


def test_rejects_indexes_of_other_shape():
    x = numpy.ones((1, 1, 2, 2), numpy.float32)
    with pytest.raises(type_check.InvalidType, match=r"Upsampling2D[\s\S]*x.shape == indexes.shape"):
        F.upsampling_2d(x, numpy.zeros((1, 1, 2, 3), numpy.int32), 2)


def test_rejects_float_indexes():
    with pytest.raises(TypeError, match=r"upsampling_2d: indexes must be an integer array"):
        F.upsampling_2d(numpy.ones((1, 1, 2, 2), "f"), numpy.zeros((1, 1, 2, 2), "f"), 2)
