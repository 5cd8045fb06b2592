import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def test_depth2space_documented_example():
    X = numpy.arange(24).reshape(1, 4, 2, 3).astype(numpy.float32)
    expected = [
        [0, 6, 1, 7, 2, 8],
        [12, 18, 13, 19, 14, 20],
        [3, 9, 4, 10, 5, 11],
        [15, 21, 16, 22, 17, 23],
    ]
    y = F.depth2space(X, 2)
    assert y.shape == (1, 1, 4, 6)
    numpy.testing.assert_array_equal(y.array[0, 0], expected)


@testing.parameterize(
    *testing.product({"case": [{"shape": (2, 8, 2, 3), "r": 2}, {"shape": (1, 9, 1, 2), "r": 3}], "dtype": DTYPES})
)
@testing.inject_backend_tests(None, BACKENDS)
class TestDepth2Space(testing.FunctionTestCase):
    def setUp(self):
        options = {"atol": 1e-2, "rtol": 5e-2} if self.dtype == numpy.float16 else {"atol": 1e-5, "rtol": 1e-4}
        self.check_backward_options = options
        self.check_double_backward_options = options

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.case["shape"]).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.depth2space(inputs[0], self.case["r"]),)

    def forward_expected(self, inputs):
        X = inputs[0]
        r = self.case["r"]
        b, crr, h, w = X.shape
        c = crr // (r * r)
        out = numpy.empty((b, c, h * r, w * r), self.dtype)
        for n, k, y, x in numpy.ndindex(*out.shape):
            i, j = y % r, x % r
            out[n, k, y, x] = X[n, (i * r + j) * c + k, y // r, x // r]
        return (out,)


def test_depth2space_invalid():
    with pytest.raises(type_check.InvalidType, match=r"Depth2Space \(Forward\)[\s\S]*X.shape\[1\] % r \* r == 0"):
        F.depth2space(numpy.zeros((1, 3, 2, 2), "f"), 2)
    with pytest.raises(type_check.InvalidType, match=r"Depth2Space \(Forward\)[\s\S]*X.ndim == 4"):
        F.depth2space(numpy.zeros((4, 2, 2), "f"), 2)
    with pytest.raises(type_check.InvalidType, match=r"Depth2Space \(Forward\)[\s\S]*X.dtype.kind == f"):
        F.depth2space(numpy.zeros((1, 4, 2, 2), "i"), 2)
    with pytest.raises(ValueError, match="depth2space: r must be positive"):
        F.depth2space(numpy.zeros((1, 4, 2, 2), "f"), 0)
