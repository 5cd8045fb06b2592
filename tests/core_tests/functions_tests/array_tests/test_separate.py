import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _grad_tolerance(dtype):
    return {"atol": 1e-2, "rtol": 5e-2} if dtype == numpy.float16 else {"atol": 1e-5, "rtol": 1e-4}


@testing.parameterize(
    *testing.product(
        {
            "case": [{"shape": (2, 3, 4), "axis": 1}, {"shape": (3, 2), "axis": -1}, {"shape": (3,), "axis": 0}],
            "dtype": DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestSeparate(testing.FunctionTestCase):
    def setUp(self):
        self.check_backward_options = _grad_tolerance(self.dtype)
        self.check_double_backward_options = _grad_tolerance(self.dtype)

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.case["shape"]).astype(self.dtype),)

    def forward(self, inputs, device):
        return F.separate(inputs[0], self.case["axis"])

    def forward_expected(self, inputs):
        x = inputs[0]
        axis = self.case["axis"] % x.ndim
        pieces = []
        for i in range(x.shape[axis]):
            index = [slice(None)] * x.ndim
            index[axis] = i
            pieces.append(numpy.asarray(x[tuple(index)]))
        return tuple(pieces)


def test_separate_unused_outputs_get_zero_gradient():
    x = chainer.Variable(numpy.ones((3, 2), "f"))
    ys = F.separate(x)
    ys[1].grad = numpy.array([5, 6], "f")
    ys[1].backward()
    numpy.testing.assert_array_equal(x.grad, [[0, 0], [5, 6], [0, 0]])


def test_separate_invalid():
    with pytest.raises(type_check.InvalidType, match=r"Separate \(Forward\)[\s\S]*x.ndim >= 1"):
        F.separate(numpy.zeros((), "f"))
    with pytest.raises(type_check.InvalidType, match=r"Separate \(Forward\)[\s\S]*axis < x.ndim"):
        F.separate(numpy.zeros((2, 2), "f"), 2)
