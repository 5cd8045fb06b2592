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
            "shape": [(), (3, 4)],
            "beta": [1.0, 2.5, -0.5, numpy.array(1.5)],
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestSoftplus(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        return (numpy.random.uniform(-2, 2, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.softplus(inputs[0], beta=self.beta),)

    def forward_expected(self, inputs):
        x = inputs[0].astype(numpy.float64)
        return (numpy.asarray(numpy.log(1 + numpy.exp(self.beta * x)) / self.beta, self.dtype),)


def test_softplus_is_stable_for_large_inputs():
    y = F.softplus(numpy.array([-1000.0, 0.0, 1000.0], numpy.float32))
    numpy.testing.assert_allclose(y.array, [0.0, numpy.log(2.0), 1000.0], rtol=1e-6)


def test_softplus_invalid():
    with pytest.raises(type_check.InvalidType, match=r"Softplus \(Forward\)[\s\S]*x.dtype.kind == f"):
        F.softplus(numpy.arange(3))
    with pytest.raises(ValueError, match=r"softplus: beta must be a nonzero real number, got 0"):
        F.softplus(numpy.zeros(3, numpy.float32), beta=0)
