import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]


@testing.parameterize(*testing.product({"dtype": [numpy.float16, numpy.float32, numpy.float64], "shape": [(), (3, 4)]}))
@testing.inject_backend_tests(None, BACKENDS)
class TestHardSigmoid(testing.FunctionTestCase):
    dodge_nondifferentiable = True

    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-7, "rtol": 1e-7}
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        return (numpy.random.uniform(-4, 4, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.hard_sigmoid(inputs[0]),)

    def forward_expected(self, inputs):
        x = inputs[0].astype(numpy.float64)
        y = numpy.where(x < -2.5, 0.0, numpy.where(x > 2.5, 1.0, 0.2 * x + 0.5))
        return (numpy.asarray(y, self.dtype),)


def test_hard_sigmoid_gradient_values():
    x = chainer.Variable(numpy.array([-3.0, 0.0, 1.0, 3.0]))
    F.sum(F.hard_sigmoid(x)).backward()
    numpy.testing.assert_allclose(x.grad, [0.0, 0.2, 0.2, 0.0])


def test_hard_sigmoid_rejects_integer_input():
    with pytest.raises(type_check.InvalidType, match=r"HardSigmoid \(Forward\)[\s\S]*x.dtype.kind == f"):
        F.hard_sigmoid(numpy.arange(3))
