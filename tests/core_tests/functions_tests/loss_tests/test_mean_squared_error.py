import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(*testing.product({"shape": [(4, 3), (2, 3, 2), ()], "dtype": DTYPES}))
@testing.inject_backend_tests(None, BACKENDS)
class TestMeanSquaredError(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-2}
            self.check_backward_options = {"atol": 1e-2, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        return tuple(numpy.random.uniform(-1, 1, self.shape).astype(self.dtype) for _ in range(2))

    def forward(self, inputs, device):
        return (F.mean_squared_error(*inputs),)

    def forward_expected(self, inputs):
        x0, x1 = (x.astype(numpy.float64) for x in inputs)
        total = 0.0
        for index in numpy.ndindex(*x0.shape):
            total += (x0[index] - x1[index]) ** 2
        return (numpy.asarray(total / max(x0.size, 1), self.dtype),)


def test_mean_squared_error_gradient_value():
    import chainer

    x0 = chainer.Variable(numpy.array([1.0, 2.0, 4.0]))
    x1 = chainer.Variable(numpy.array([0.0, 0.0, 0.0]))
    F.mean_squared_error(x0, x1).backward()
    numpy.testing.assert_allclose(x0.grad, [2 / 3, 4 / 3, 8 / 3])
    numpy.testing.assert_allclose(x1.grad, [-2 / 3, -4 / 3, -8 / 3])


def test_mean_squared_error_rejects_mismatched_inputs():
    with pytest.raises(type_check.InvalidType, match=r"MeanSquaredError[\s\S]*x0.shape == x1.shape"):
        F.mean_squared_error(numpy.zeros(3, numpy.float32), numpy.zeros(4, numpy.float32))
    with pytest.raises(type_check.InvalidType, match=r"MeanSquaredError[\s\S]*x0.dtype == x1.dtype"):
        F.mean_squared_error(numpy.zeros(3, numpy.float32), numpy.zeros(3, numpy.float64))
    with pytest.raises(type_check.InvalidType, match=r"MeanSquaredError[\s\S]*x0.dtype.kind == f"):
        F.mean_squared_error(numpy.zeros(3, numpy.int32), numpy.zeros(3, numpy.int32))
