import itertools

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing

BACKENDS = [{}, {"use_cuda": True}]


def naive_unpooling(x, ksize, stride, pad, outsize, cover_all):
    nd = x.ndim - 2
    if outsize is None:
        outsize = tuple(
            s * (n - 1) + k - 2 * p - (s - 1 if cover_all else 0) for n, k, s, p in zip(x.shape[2:], ksize, stride, pad)
        )
    big = numpy.zeros(x.shape[:2] + tuple(s * n + k + 2 * p for n, k, s, p in zip(x.shape[2:], ksize, stride, pad)))
    for pos in itertools.product(*(range(n) for n in x.shape[2:])):
        window = tuple(slice(i * s, i * s + k) for i, s, k in zip(pos, stride, ksize))
        big[(slice(None), slice(None)) + window] += x[(slice(None), slice(None)) + pos].reshape(x.shape[:2] + (1,) * nd)
    return big[(slice(None), slice(None)) + tuple(slice(p, p + o) for p, o in zip(pad, outsize))]


def as_tuple(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v)


@testing.parameterize(
    *testing.product(
        {
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
            "case": [
                # x shape, ksize, stride, pad, outsize, cover_all, function
                ((2, 2, 3), 2, None, 0, None, True, "1d"),
                ((1, 2, 3), 3, 2, 1, (5,), True, "1d"),
                ((1, 1, 2, 2, 3), 2, None, 0, None, False, "3d"),
                ((1, 2, 2, 3, 2), (2, 3, 2), (1, 2, 2), (0, 1, 0), None, False, "3d"),
                ((1, 1, 3, 2), 2, 1, 0, None, True, "nd"),
            ],
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestUnpoolingND(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.ksize, self.stride, self.pad, self.outsize, self.cover_all, self.fn = self.case
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        fn = {"1d": F.unpooling_1d, "3d": F.unpooling_3d, "nd": F.unpooling_nd}[self.fn]
        return (fn(inputs[0], self.ksize, self.stride, self.pad, self.outsize, self.cover_all),)

    def forward_expected(self, inputs):
        nd = inputs[0].ndim - 2
        stride = self.ksize if self.stride is None else self.stride
        y = naive_unpooling(
            inputs[0].astype(numpy.float64),
            as_tuple(self.ksize, nd),
            as_tuple(stride, nd),
            as_tuple(self.pad, nd),
            self.outsize,
            self.cover_all,
        )
        return (y.astype(self.dtype),)


def test_unpooling_1d_rejects_2d_input():
    with pytest.raises(ValueError, match=r"unpooling_1d: x must have 1 spatial axis"):
        F.unpooling_1d(numpy.ones((1, 1, 2, 2), numpy.float32), 2)


def test_unpooling_nd_is_the_transpose_of_sum_pooling():
    rng = numpy.random.RandomState(0)
    x = rng.randn(2, 3, 4, 5)
    g = rng.randn(2, 3, 2, 3)
    pooled = F.average_pooling_nd(x, 3, 2, 1).array * 9  # sum pooling
    numpy.testing.assert_allclose(
        (pooled * g).sum(), (x * F.unpooling_nd(g, 3, 2, 1, outsize=(4, 5), cover_all=False).array).sum()
    )


def test_unpooling_to_an_empty_output():
    # The padding may remove the whole output along an axis: the result is empty, not an error.
    # Output length: stride * (n - 1) + ksize - stride + 1 - 2 * pad (cover_all) -> 1 and 0 here.
    x = chainer.Variable(numpy.ones((2, 3, 3, 2), numpy.float32))
    y = F.unpooling_nd(x, 1, stride=1, pad=1, cover_all=True)
    assert y.shape == (2, 3, 1, 0)
    y.grad = numpy.ones(y.shape, numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, numpy.zeros(x.shape))
