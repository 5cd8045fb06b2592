import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
FORWARD_TOL = {
    numpy.float16: {"atol": 1e-3, "rtol": 5e-3},
    numpy.float32: {"atol": 1e-6, "rtol": 1e-5},
    numpy.float64: {"atol": 1e-13, "rtol": 1e-12},
}
# Numerical gradients are computed in float64; for float64 a smaller step keeps the
# truncation error of central differences below the tolerance.
BACKWARD_TOL = {
    numpy.float16: {"atol": 1e-2, "rtol": 1e-2},
    numpy.float32: {"atol": 1e-4, "rtol": 1e-3},
    numpy.float64: {"eps": 1e-4, "atol": 1e-6, "rtol": 1e-5},
}
DOUBLE_BACKWARD_TOL = {
    numpy.float16: {"atol": 5e-2, "rtol": 5e-2},
    numpy.float32: {"atol": 1e-3, "rtol": 1e-2},
    numpy.float64: {"eps": 1e-4, "atol": 1e-6, "rtol": 1e-5},
}


@testing.fix_random()
@testing.parameterize(
    *testing.product({"shapes": [((), ()), ((3, 2), (3, 2)), ((3, 2), (2,)), ((3, 1), (1, 2))], "dtype": DTYPES})
)
@testing.inject_backend_tests(None, BACKENDS)
class TestMinimum(testing.FunctionTestCase):
    dodge_nondifferentiable = True

    def setUp(self):
        self.check_forward_options = FORWARD_TOL[self.dtype]
        self.check_backward_options = BACKWARD_TOL[self.dtype]
        self.check_double_backward_options = DOUBLE_BACKWARD_TOL[self.dtype]

    def generate_inputs(self):
        shape1, shape2 = self.shapes
        x1 = numpy.random.uniform(-1, 1, shape1).astype(self.dtype)
        x2 = numpy.random.uniform(-1, 1, shape2).astype(self.dtype)
        return x1, x2

    def forward(self, inputs, device):
        return (F.minimum(*inputs),)

    def forward_expected(self, inputs):
        x1, x2 = inputs
        return (numpy.asarray(numpy.where(x1 <= x2, x1, x2), self.dtype),)


def test_minimum_gradient_goes_to_the_smaller_input_and_to_x1_on_ties():
    x1 = chainer.Variable(numpy.array([1.0, 2.0, 3.0], numpy.float32))
    x2 = chainer.Variable(numpy.array([[2.0, 2.0, 3.0], [0.0, 4.0, 5.0]], numpy.float32))
    g1, g2 = chainer.grad([F.minimum(x1, x2)], [x1, x2], grad_outputs=[numpy.ones((2, 3), numpy.float32)])
    expected1 = numpy.array([[1, 1, 1], [0, 1, 1]], numpy.float32)
    assert numpy.array_equal(g2.array, 1 - expected1)
    assert numpy.array_equal(g1.array, expected1.sum(axis=0))


def test_minimum_rejects_mixed_dtypes():
    with pytest.raises(type_check.InvalidType, match=r"minimum \(Forward\)[\s\S]*x2.dtype == x1.dtype"):
        F.minimum(numpy.ones(3, numpy.float32), numpy.ones(3, numpy.float64))


def test_minimum_rejects_integer_inputs():
    with pytest.raises(type_check.InvalidType, match=r"minimum \(Forward\)[\s\S]*x1.dtype.kind == f"):
        F.minimum(numpy.ones(3, numpy.int32), numpy.ones(3, numpy.int32))


def test_minimum_rejects_shapes_that_do_not_broadcast():
    with pytest.raises(type_check.InvalidType, match=r"x1.shape and x2.shape can be broadcast together"):
        F.minimum(numpy.ones((2, 3), numpy.float32), numpy.ones(2, numpy.float32))
