import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]


def _options(dtype):
    if dtype == numpy.float16:
        return {"atol": 1e-3, "rtol": 1e-3}, {"atol": 5e-3, "rtol": 5e-2}
    return {"atol": 1e-7, "rtol": 1e-7}, {"atol": 1e-4, "rtol": 1e-3}


@testing.parameterize(
    *testing.product(
        {
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
            "shape": [(), (3, 4)],
            "z": [0.75, 20.0],
            "which": ["clipped_relu", "relu6"],
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestClippedReLU(testing.FunctionTestCase):
    dodge_nondifferentiable = True

    def setUp(self):
        self.check_forward_options, self.check_backward_options = _options(self.dtype)
        self.check_double_backward_options = self.check_backward_options
        self.cap = 6.0 if self.which == "relu6" else self.z

    def generate_inputs(self):
        return (numpy.random.uniform(-1.0, self.cap + 1.0, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        if self.which == "relu6":
            return (F.relu6(inputs[0]),)
        return (F.clipped_relu(inputs[0], self.z),)

    def forward_expected(self, inputs):
        x = inputs[0].astype(numpy.float64)
        y = numpy.where(x < 0, 0.0, numpy.where(x > self.cap, self.cap, x))
        return (numpy.asarray(y, self.dtype),)


def test_clipped_relu_values():
    y = F.clipped_relu(numpy.array([-3.0, 0.5, 2.0, 30.0], numpy.float32), 1.5)
    numpy.testing.assert_array_equal(y.array, [0.0, 0.5, 1.5, 1.5])
    numpy.testing.assert_array_equal(F.relu6(numpy.array([-1.0, 7.0], numpy.float32)).array, [0.0, 6.0])
    # Default z = 20.
    numpy.testing.assert_array_equal(F.clipped_relu(numpy.array([25.0], numpy.float32)).array, [20.0])


def test_clipped_relu_gradient_is_zero_outside():
    x = chainer.Variable(numpy.array([-1.0, 0.5, 3.0], numpy.float64))
    F.sum(F.clipped_relu(x, 2.0)).backward()
    numpy.testing.assert_array_equal(x.grad, [0.0, 1.0, 0.0])


def test_clipped_relu_rejects_integer_input():
    with pytest.raises(type_check.InvalidType, match=r"ClippedReLU \(Forward\)[\s\S]*x.dtype.kind == f"):
        F.clipped_relu(numpy.arange(3), 1.0)
    with pytest.raises(type_check.InvalidType, match=r"ReLU6 \(Forward\)"):
        F.relu6(numpy.arange(3))


def test_clipped_relu_rejects_non_number_z():
    with pytest.raises(TypeError, match=r"clipped_relu: z must be a real number, got str"):
        F.clipped_relu(numpy.zeros(3, numpy.float32), "6")
