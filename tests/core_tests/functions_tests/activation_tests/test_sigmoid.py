import unittest

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]


@testing.parameterize(
    *testing.product(
        {"shape": [(), (3, 2), (2, 0)], "dtype": [numpy.float16, numpy.float32, numpy.float64], "scale": [1.0, 6.0]}
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestSigmoid(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-4, "rtol": 5e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-7, "rtol": 1e-6}
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        return (numpy.random.uniform(-self.scale, self.scale, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.sigmoid(inputs[0]),)

    def forward_expected(self, inputs):
        x = inputs[0].astype(numpy.float64)
        return (numpy.asarray(1 / (1 + numpy.exp(-x)), self.dtype),)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_sigmoid_saturates_without_overflow(dtype):
    # exp(-x) would overflow for these; the implementation must not warn or produce NaN.
    x = numpy.array([-1e4, -100.0, 0.0, 100.0, 1e4]).astype(dtype)
    y = F.sigmoid(x).array
    assert y.dtype == dtype
    numpy.testing.assert_allclose(y, [0.0, 0.0, 0.5, 1.0, 1.0], atol=1e-30)


def test_sigmoid_gradient_formula():
    x = chainer.Variable(numpy.array([-2.0, 0.0, 3.0]))
    y = F.sigmoid(x)
    F.sum(y).backward()
    s = 1 / (1 + numpy.exp(-x.array))
    numpy.testing.assert_allclose(x.grad, s * (1 - s), rtol=1e-12)


def test_sigmoid_second_derivative_formula():
    x = chainer.Variable(numpy.array([-2.0, 0.0, 3.0]))
    (gx,) = chainer.grad([F.sum(F.sigmoid(x))], [x], enable_double_backprop=True)
    F.sum(gx).backward()
    s = 1 / (1 + numpy.exp(-x.array))
    numpy.testing.assert_allclose(x.grad, s * (1 - s) * (1 - 2 * s), rtol=1e-10, atol=1e-15)


def test_sigmoid_rejects_integer_input():
    with pytest.raises(type_check.InvalidType, match=r"Sigmoid \(Forward\)[\s\S]*x.dtype.kind == f"):
        F.sigmoid(numpy.arange(3))


class TestSigmoidGraph(unittest.TestCase):
    def test_output_is_retained_not_input(self):
        x = chainer.Variable(numpy.zeros(3, numpy.float32))
        y = F.sigmoid(x)
        assert y.creator.inputs[0].data is None
        assert y.node.data is not None
