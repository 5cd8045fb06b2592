import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "case": [
                {"in": (2, 3, 4), "shape": (3, 1)},
                {"in": (2, 3, 4), "shape": (1, 3, 4)},
                {"in": (2, 3), "shape": ()},
                {"in": (2, 3), "shape": (1, 1)},
                {"in": (3,), "shape": (3,)},
            ],
            "dtype": DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestSumTo(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 1e-2, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-5, "rtol": 1e-4}
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.case["in"]).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.sum_to(inputs[0], self.case["shape"]),)

    def forward_expected(self, inputs):
        x = inputs[0].astype(numpy.float64)
        shape = self.case["shape"]
        lead = x.ndim - len(shape)
        out = numpy.zeros(shape)
        # Every element of x lands on the target element it was broadcast from.
        for index in numpy.ndindex(*x.shape):
            target = tuple(0 if n == 1 else i for i, n in zip(index[lead:], shape))
            out[target] += x[index]
        return (out.astype(self.dtype),)


def test_sum_to_same_shape_returns_the_variable():
    x = chainer.Variable(numpy.zeros((2, 3), "f"))
    assert F.sum_to(x, (2, 3)) is x
    assert isinstance(F.sum_to(numpy.zeros(2, "f"), (2,)), chainer.Variable)


def test_sum_to_invalid():
    with pytest.raises(type_check.InvalidType, match=r"SumTo \(Forward\)[\s\S]*x.shape can be summed to \(2,\)"):
        F.sum_to(numpy.zeros((2, 3), "f"), (2,))
    with pytest.raises(type_check.InvalidType, match=r"SumTo \(Forward\)[\s\S]*x.ndim >= 3"):
        F.sum_to(numpy.zeros((2, 3), "f"), (1, 2, 3))
