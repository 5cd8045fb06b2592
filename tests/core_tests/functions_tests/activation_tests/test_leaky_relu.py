import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]


@testing.parameterize(
    *testing.product(
        {"dtype": [numpy.float16, numpy.float32, numpy.float64], "shape": [(), (3, 4)], "slope": [0.2, -0.5, 0.0]}
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestLeakyReLU(testing.FunctionTestCase):
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
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.leaky_relu(inputs[0], slope=self.slope),)

    def forward_expected(self, inputs):
        x = inputs[0].astype(numpy.float64)
        return (numpy.asarray(numpy.where(x >= 0, x, self.slope * x), self.dtype),)


def test_leaky_relu_default_slope():
    y = F.leaky_relu(numpy.array([-1.0, 2.0], numpy.float32))
    numpy.testing.assert_allclose(y.array, [-0.2, 2.0])


def test_leaky_relu_zero_slope_has_zero_gradient_on_negative_side():
    x = chainer.Variable(numpy.array([-1.0, 2.0]))
    F.sum(F.leaky_relu(x, slope=0.0)).backward()
    numpy.testing.assert_array_equal(x.grad, [0.0, 1.0])


def test_leaky_relu_invalid():
    with pytest.raises(type_check.InvalidType, match=r"LeakyReLU \(Forward\)[\s\S]*x.dtype.kind == f"):
        F.leaky_relu(numpy.arange(3))
    with pytest.raises(TypeError, match=r"leaky_relu: slope must be a real number, got NoneType"):
        F.leaky_relu(numpy.zeros(3, numpy.float32), None)
