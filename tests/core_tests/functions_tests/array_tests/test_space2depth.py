import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def test_space2depth_documented_example():
    X = numpy.arange(24).reshape(1, 1, 4, 6).astype(numpy.float32)
    expected = [
        [[0, 2, 4], [12, 14, 16]],
        [[1, 3, 5], [13, 15, 17]],
        [[6, 8, 10], [18, 20, 22]],
        [[7, 9, 11], [19, 21, 23]],
    ]
    y = F.space2depth(X, 2)
    assert y.shape == (1, 4, 2, 3)
    numpy.testing.assert_array_equal(y.array[0], expected)


@testing.parameterize(
    *testing.product({"case": [{"shape": (2, 2, 4, 6), "r": 2}, {"shape": (1, 1, 3, 3), "r": 3}], "dtype": DTYPES})
)
@testing.inject_backend_tests(None, BACKENDS)
class TestSpace2Depth(testing.FunctionTestCase):
    def setUp(self):
        options = {"atol": 1e-2, "rtol": 5e-2} if self.dtype == numpy.float16 else {"atol": 1e-5, "rtol": 1e-4}
        self.check_backward_options = options
        self.check_double_backward_options = options

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.case["shape"]).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.space2depth(inputs[0], self.case["r"]),)

    def forward_expected(self, inputs):
        X = inputs[0]
        r = self.case["r"]
        b, c, hr, wr = X.shape
        out = numpy.empty((b, c * r * r, hr // r, wr // r), self.dtype)
        for n, k, y, x in numpy.ndindex(*X.shape):
            i, j = y % r, x % r
            out[n, (i * r + j) * c + k, y // r, x // r] = X[n, k, y, x]
        return (out,)


def test_space2depth_inverts_depth2space():
    X = numpy.random.uniform(size=(2, 12, 2, 3)).astype("f")
    numpy.testing.assert_array_equal(F.space2depth(F.depth2space(X, 2), 2).array, X)


def test_space2depth_invalid():
    with pytest.raises(type_check.InvalidType, match=r"Space2Depth \(Forward\)[\s\S]*X.shape\[3\] % r == 0"):
        F.space2depth(numpy.zeros((1, 1, 2, 3), "f"), 2)
    with pytest.raises(type_check.InvalidType, match=r"Space2Depth \(Forward\)[\s\S]*X.ndim == 4"):
        F.space2depth(numpy.zeros((1, 2, 2), "f"), 2)
