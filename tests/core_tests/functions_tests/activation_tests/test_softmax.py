import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]


@testing.parameterize(
    *testing.product(
        {
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
            "shape_axis": [((3, 4), 1), ((3, 4), 0), ((2, 3, 4), 2), ((2, 3, 4), -2), ((5,), 0)],
            "which": ["softmax", "log_softmax"],
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestSoftmaxAndLogSoftmax(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.axis = self.shape_axis
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
        f = F.softmax if self.which == "softmax" else F.log_softmax
        return (f(inputs[0], axis=self.axis),)

    def forward_expected(self, inputs):
        x = inputs[0].astype(numpy.float64)
        e = numpy.exp(x)
        p = e / e.sum(axis=self.axis, keepdims=True)
        return ((p if self.which == "softmax" else numpy.log(p)).astype(self.dtype),)


def test_softmax_default_axis_is_one():
    x = numpy.array([[[0.0, 1.0]], [[2.0, 3.0]]])  # shape (2, 1, 2): axis 1 has a single entry
    numpy.testing.assert_array_equal(F.softmax(x).array, numpy.ones((2, 1, 2)))
    numpy.testing.assert_array_equal(F.log_softmax(x).array, numpy.zeros((2, 1, 2)))


def test_softmax_is_stable_for_large_logits():
    x = numpy.array([[1000.0, 0.0], [-1000.0, -1000.0]], numpy.float32)
    numpy.testing.assert_allclose(F.softmax(x).array, [[1.0, 0.0], [0.5, 0.5]])
    # float32 spacing near 1000 is 6e-5, which bounds the accuracy of x - logsumexp(x).
    numpy.testing.assert_allclose(F.log_softmax(x).array, [[0.0, -1000.0], [-numpy.log(2.0)] * 2], atol=1e-4)


def test_log_softmax_gradient_matches_formula():
    x = chainer.Variable(numpy.random.uniform(-1, 1, (2, 3)))
    gy = numpy.random.uniform(-1, 1, (2, 3))
    y = F.log_softmax(x)
    y.grad = gy
    y.backward()
    p = numpy.exp(y.array)
    numpy.testing.assert_allclose(x.grad, gy - p * gy.sum(axis=1, keepdims=True), rtol=1e-12)


@pytest.mark.parametrize("func, label", [(F.softmax, "Softmax"), (F.log_softmax, "LogSoftmax")])
def test_softmax_invalid(func, label):
    with pytest.raises(type_check.InvalidType, match=label + r" \(Forward\)[\s\S]*x.ndim > 2"):
        func(numpy.zeros((2, 3), numpy.float32), axis=2)
    with pytest.raises(type_check.InvalidType, match=label + r" \(Forward\)[\s\S]*x.ndim >= 3"):
        func(numpy.zeros((2, 3), numpy.float32), axis=-3)
    with pytest.raises(type_check.InvalidType, match=r"x.dtype.kind == f"):
        func(numpy.zeros((2, 3), numpy.int32))
    with pytest.raises(TypeError, match=r"axis must be an int, got NoneType"):
        func(numpy.zeros((2, 3), numpy.float32), axis=None)
