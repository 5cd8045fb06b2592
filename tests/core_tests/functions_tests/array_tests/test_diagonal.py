import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _reference(x, offset, axis1, axis2):
    axis1 %= x.ndim
    axis2 %= x.ndim
    rest = [a for a in range(x.ndim) if a not in (axis1, axis2)]
    pairs = []
    for i in range(x.shape[axis1]):
        j = i + offset
        if 0 <= j < x.shape[axis2]:
            pairs.append((i, j))
    out = numpy.empty(tuple(x.shape[a] for a in rest) + (len(pairs),), x.dtype)
    for index in numpy.ndindex(*out.shape):
        source = [0] * x.ndim
        for a, v in zip(rest, index[:-1]):
            source[a] = v
        source[axis1], source[axis2] = pairs[index[-1]]
        out[index] = x[tuple(source)]
    return out


@testing.parameterize(
    *testing.product(
        {
            "case": [
                {"shape": (3, 3), "args": (0, 0, 1)},
                {"shape": (3, 4), "args": (1, 0, 1)},
                {"shape": (3, 4), "args": (-2, 0, 1)},
                {"shape": (2, 3, 4), "args": (0, 2, 0)},
                {"shape": (2, 3, 4), "args": (1, -1, 1)},
                {"shape": (2, 2), "args": (5, 0, 1)},
            ],
            "dtype": DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestDiagonal(testing.FunctionTestCase):
    def setUp(self):
        options = {"atol": 1e-2, "rtol": 5e-2} if self.dtype == numpy.float16 else {"atol": 1e-5, "rtol": 1e-4}
        self.check_backward_options = options
        self.check_double_backward_options = options

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.case["shape"]).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.diagonal(inputs[0], *self.case["args"]),)

    def forward_expected(self, inputs):
        return (_reference(inputs[0], *self.case["args"]),)


def test_diagonal_invalid():
    with pytest.raises(type_check.InvalidType, match=r"Diagonal \(Forward\)[\s\S]*x.ndim >= 2"):
        F.diagonal(numpy.zeros(3, "f"))
    with pytest.raises(type_check.InvalidType, match=r"Diagonal \(Forward\)[\s\S]*axis2 < x.ndim"):
        F.diagonal(numpy.zeros((2, 2), "f"), 0, 0, 2)
    with pytest.raises(type_check.InvalidType, match=r"axis1 and axis2 are different axes"):
        F.diagonal(numpy.zeros((2, 2), "f"), 0, 1, -1)
