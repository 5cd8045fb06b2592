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
            "shape_axis": [((3, 4), 1), ((3, 4), 0), ((2, 3, 2), -1), ((5,), 0)],
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestCReLU(testing.FunctionTestCase):
    dodge_nondifferentiable = True

    def setUp(self):
        self.shape, self.axis = self.shape_axis
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
        return (F.crelu(inputs[0], axis=self.axis),)

    def forward_expected(self, inputs):
        x = inputs[0]
        return (numpy.concatenate((numpy.maximum(x, 0), numpy.maximum(-x, 0)), axis=self.axis).astype(self.dtype),)


def test_crelu_values():
    y = F.crelu(numpy.array([[-1.0, 2.0], [3.0, -4.0]], numpy.float32))
    numpy.testing.assert_array_equal(y.array, [[0.0, 2.0, 1.0, 0.0], [3.0, 0.0, 0.0, 4.0]])


def test_crelu_invalid():
    with pytest.raises(type_check.InvalidType, match=r"CReLU \(Forward\)[\s\S]*x.ndim > 2"):
        F.crelu(numpy.zeros((2, 3), numpy.float32), axis=2)
    with pytest.raises(type_check.InvalidType, match=r"CReLU \(Forward\)[\s\S]*x.ndim >= 3"):
        F.crelu(numpy.zeros((2, 3), numpy.float32), axis=-3)
    with pytest.raises(type_check.InvalidType, match=r"x.dtype.kind == f"):
        F.crelu(numpy.zeros((2, 3), numpy.int32))
    with pytest.raises(TypeError, match=r"crelu: axis must be an int, got float"):
        F.crelu(numpy.zeros((2, 3), numpy.float32), axis=1.0)
