import unittest

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
TOLERANCES = {
    numpy.float16: {"atol": 5e-3, "rtol": 5e-2},
    numpy.float32: {"atol": 1e-5, "rtol": 1e-4},
    numpy.float64: {"atol": 1e-10, "rtol": 1e-8},
}


@testing.parameterize(
    *testing.product({"shape": [(), (3, 2), (0, 2)], "dtype": [numpy.float16, numpy.float32, numpy.float64]})
)
@testing.inject_backend_tests(None, BACKENDS)
class TestTanh(testing.FunctionTestCase):
    def setUp(self):
        self.check_forward_options = TOLERANCES[self.dtype]
        self.check_backward_options = (
            {"atol": 1e-3, "rtol": 1e-2} if self.dtype == numpy.float16 else {"atol": 1e-4, "rtol": 1e-3}
        )
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        return (numpy.random.uniform(-2, 2, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.tanh(*inputs),)

    def forward_expected(self, inputs):
        (x,) = inputs
        e2x = numpy.exp(2 * x.astype(numpy.float64))
        return (((e2x - 1) / (e2x + 1)).astype(self.dtype),)


def test_tanh_saturates():
    y = F.tanh(numpy.array([-1e4, 1e4], numpy.float32))
    numpy.testing.assert_array_equal(y.array, [-1.0, 1.0])


def test_tanh_second_derivative_formula():
    x = chainer.Variable(numpy.array([-1.0, 0.5]))
    (gx,) = chainer.grad([F.sum(F.tanh(x))], [x], enable_double_backprop=True)
    t = numpy.tanh(x.array)
    numpy.testing.assert_allclose(gx.array, 1 - t * t, rtol=1e-12)
    F.sum(gx).backward()
    numpy.testing.assert_allclose(x.grad, -2 * t * (1 - t * t), rtol=1e-12)


def test_tanh_rejects_integer_input():
    with pytest.raises(type_check.InvalidType, match=r"Tanh \(Forward\)[\s\S]*x.dtype.kind == f"):
        F.tanh(numpy.arange(3))


class TestTanhGraph(unittest.TestCase):
    def test_output_is_retained_not_input(self):
        x = chainer.Variable(numpy.zeros(3, numpy.float32))
        y = F.tanh(x)
        assert y.creator.inputs[0].data is None
        assert y.node.data is not None
