import itertools

import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]


def naive_average_pooling(x, ksize, stride, pad, pad_value):
    """Mean per window by loops over output positions; padding is zeros (pad_value=0)
    or left out of the mean (pad_value=None)."""
    out = [(n + 2 * p - k) // s + 1 for n, k, s, p in zip(x.shape[2:], ksize, stride, pad)]
    padded = numpy.pad(x.astype(numpy.float64), [(0, 0), (0, 0)] + [(p, p) for p in pad])
    real = numpy.pad(numpy.ones(x.shape[2:]), [(p, p) for p in pad])
    y = numpy.empty(x.shape[:2] + tuple(out))
    for pos in itertools.product(*(range(m) for m in out)):
        window = tuple(slice(i * s, i * s + k) for i, s, k in zip(pos, stride, ksize))
        total = padded[(slice(None), slice(None)) + window].sum(axis=tuple(range(2, x.ndim)))
        count = numpy.prod(ksize) if pad_value == 0 else real[window].sum()
        y[(slice(None), slice(None)) + pos] = total / count
    return y


def as_tuple(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v)


@testing.parameterize(
    *testing.product(
        {
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
            "case": [
                # x shape, ksize, stride, pad, function
                ((2, 2, 7), 3, 2, 1, "1d"),
                ((1, 2, 4, 3, 5), 2, None, 0, "3d"),
                ((1, 1, 4, 4, 3), (2, 3, 2), (2, 1, 1), (1, 1, 0), "3d"),
                ((1, 2, 3, 4), 2, 1, 1, "nd"),
            ],
            "pad_value": [0, None],
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestAveragePoolingND(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.ksize, self.stride, self.pad, self.fn = self.case
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        fn = {"1d": F.average_pooling_1d, "3d": F.average_pooling_3d, "nd": F.average_pooling_nd}[self.fn]
        return (fn(inputs[0], self.ksize, self.stride, self.pad, self.pad_value),)

    def forward_expected(self, inputs):
        nd = inputs[0].ndim - 2
        stride = self.ksize if self.stride is None else self.stride
        y = naive_average_pooling(
            inputs[0], as_tuple(self.ksize, nd), as_tuple(stride, nd), as_tuple(self.pad, nd), self.pad_value
        )
        return (y.astype(self.dtype),)


def test_rejects_other_pad_value():
    with pytest.raises(ValueError, match=r"average_pooling_nd: pad_value must be 0 or None, got 1"):
        F.average_pooling_nd(numpy.ones((1, 1, 4), numpy.float32), 2, pad_value=1)


def test_rejects_wrong_spatial_ndim():
    with pytest.raises(ValueError, match=r"average_pooling_3d: x must have 3 spatial axis"):
        F.average_pooling_3d(numpy.ones((1, 1, 4, 4), numpy.float32), 2)
    with pytest.raises(ValueError, match=r"average_pooling_1d: x must have 1 spatial axis"):
        F.average_pooling_1d(numpy.ones((1, 1, 4, 4), numpy.float32), 2)


def test_rejects_integer_input():
    with pytest.raises(type_check.InvalidType, match=r"AveragePoolingND[\s\S]*x.dtype.kind == f"):
        F.average_pooling_nd(numpy.ones((1, 1, 4), numpy.int64), 2)
