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
            "shape": [(), (3, 4)],
            "alpha": [1.0, 0.3],
            "which": ["elu", "selu"],
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestELUAndSELU(testing.FunctionTestCase):
    dodge_nondifferentiable = True

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
        if self.which == "elu":
            return (F.elu(inputs[0], alpha=self.alpha),)
        return (F.selu(inputs[0], alpha=self.alpha, scale=1.5),)

    def forward_expected(self, inputs):
        x = inputs[0].astype(numpy.float64)
        y = numpy.where(x > 0, x, self.alpha * (numpy.exp(x) - 1))
        if self.which == "selu":
            y = 1.5 * y
        return (numpy.asarray(y, self.dtype),)


def test_selu_default_constants():
    x = numpy.array([-1.0, 1.0])
    alpha, scale = 1.6732632423543772, 1.0507009873554805
    expected = scale * numpy.array([alpha * (numpy.exp(-1.0) - 1), 1.0])
    numpy.testing.assert_allclose(F.selu(x).array, expected, rtol=1e-12)


def test_elu_has_no_overflow_warning_for_large_inputs():
    # filterwarnings=error turns a RuntimeWarning from exp(large) into a failure.
    y = F.elu(numpy.array([1000.0, -1000.0], numpy.float32))
    numpy.testing.assert_array_equal(y.array, [1000.0, -1.0])
    x = chainer.Variable(numpy.array([1000.0, -1000.0], numpy.float32))
    F.sum(F.elu(x)).backward()
    numpy.testing.assert_array_equal(x.grad, [1.0, 0.0])


def test_elu_invalid():
    with pytest.raises(type_check.InvalidType, match=r"ELU \(Forward\)[\s\S]*x.dtype.kind == f"):
        F.elu(numpy.arange(3))
    with pytest.raises(TypeError, match=r"elu: alpha must be a real number"):
        F.elu(numpy.zeros(3, numpy.float32), alpha="1")
    with pytest.raises(TypeError, match=r"selu: scale must be a real number"):
        F.selu(numpy.zeros(3, numpy.float32), scale=None)
