import itertools

import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]


def naive_max_pooling(x, ksize, stride, pad, cover_all):
    out = [
        (n + 2 * p - k + (s - 1 if cover_all else 0)) // s + 1 for n, k, s, p in zip(x.shape[2:], ksize, stride, pad)
    ]
    padded = numpy.pad(
        x.astype(numpy.float64),
        [(0, 0), (0, 0)] + [(p, p + s) for p, s in zip(pad, stride)],
        constant_values=-numpy.inf,
    )
    y = numpy.empty(x.shape[:2] + tuple(out))
    for pos in itertools.product(*(range(m) for m in out)):
        window = tuple(slice(i * s, i * s + k) for i, s, k in zip(pos, stride, ksize))
        y[(slice(None), slice(None)) + pos] = (
            padded[(slice(None), slice(None)) + window].reshape(x.shape[:2] + (-1,)).max(-1)
        )
    return y


def as_tuple(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v)


@testing.parameterize(
    *testing.product(
        {
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
            "case": [
                # x shape, ksize, stride, pad, cover_all, function
                ((2, 2, 7), 3, 2, 1, True, "1d"),
                ((1, 3, 6), 2, None, 0, False, "1d"),
                ((1, 2, 4, 3, 5), 2, None, 0, True, "3d"),
                ((1, 1, 4, 4, 3), (2, 3, 2), (2, 1, 1), (1, 1, 0), False, "3d"),
                ((1, 2, 3, 4), 2, 1, 0, True, "nd"),
            ],
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestMaxPoolingND(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.ksize, self.stride, self.pad, self.cover_all, self.fn = self.case
        if self.dtype == numpy.float16:
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        values = numpy.random.permutation(int(numpy.prod(self.shape))).reshape(self.shape)
        return ((values * 0.25 - 2).astype(self.dtype),)

    def forward(self, inputs, device):
        fn = {"1d": F.max_pooling_1d, "3d": F.max_pooling_3d, "nd": F.max_pooling_nd}[self.fn]
        return (fn(inputs[0], self.ksize, self.stride, self.pad, self.cover_all),)

    def forward_expected(self, inputs):
        nd = inputs[0].ndim - 2
        stride = self.ksize if self.stride is None else self.stride
        y = naive_max_pooling(
            inputs[0], as_tuple(self.ksize, nd), as_tuple(stride, nd), as_tuple(self.pad, nd), self.cover_all
        )
        return (y.astype(self.dtype),)


def test_max_pooling_1d_rejects_2d_input():
    with pytest.raises(ValueError, match=r"max_pooling_1d: x must have 1 spatial axis"):
        F.max_pooling_1d(numpy.ones((1, 1, 3, 3), numpy.float32), 2)


def test_max_pooling_3d_rejects_2d_input():
    with pytest.raises(ValueError, match=r"max_pooling_3d: x must have 3 spatial axis"):
        F.max_pooling_3d(numpy.ones((1, 1, 3, 3), numpy.float32), 2)


def test_max_pooling_nd_rejects_integer_input():
    with pytest.raises(type_check.InvalidType, match=r"MaxPoolingND[\s\S]*x.dtype.kind == f"):
        F.max_pooling_nd(numpy.ones((1, 1, 3), numpy.int32), 2)


def test_max_pooling_nd_rejects_ksize_of_other_length():
    with pytest.raises(ValueError, match=r"max_pooling_nd: ksize must be an int or a sequence of 2 ints"):
        F.max_pooling_nd(numpy.ones((1, 1, 3, 3), numpy.float32), (2, 2, 2))


def test_max_pooling_nd_return_indices():
    x = numpy.array([[[3.0, 1.0, 2.0, 5.0, 4.0]]], numpy.float32)
    y, indexes = F.max_pooling_nd(x, 2, return_indices=True)
    numpy.testing.assert_array_equal(y.array, [[[3.0, 5.0, 4.0]]])
    numpy.testing.assert_array_equal(indexes, [[[0, 1, 0]]])
