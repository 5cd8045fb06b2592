import _math_testlib as testlib
import numpy
import pytest
import scipy.linalg

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check


@testing.parameterize(*testing.product({"n": [1, 3], "dtype": [numpy.float32, numpy.float64]}))
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestCholesky(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float32:
            self.check_forward_options = {"atol": 1e-5, "rtol": 1e-4}
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-2}
        else:
            self.check_forward_options = {"atol": 1e-10, "rtol": 1e-8}
            self.check_backward_options = {"atol": 1e-5, "rtol": 1e-4}
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        m = numpy.random.uniform(-1, 1, (self.n, self.n))
        return ((m @ m.T + self.n * numpy.eye(self.n)).astype(self.dtype),)

    def forward(self, inputs, device):
        # Perturbations of the checks are made symmetric, the domain of the function.
        (a,) = inputs
        return (F.cholesky((a + F.transpose(a)) * 0.5),)

    def forward_expected(self, inputs):
        return (scipy.linalg.cholesky(inputs[0].astype(numpy.float64), lower=True).astype(self.dtype),)


def test_cholesky_gradient_is_symmetric():
    m = numpy.random.uniform(-1, 1, (3, 3))
    a = chainer.Variable(m @ m.T + 3 * numpy.eye(3))
    lower = F.cholesky(a)
    F.sum(lower * numpy.random.uniform(-1, 1, (3, 3))).backward()
    numpy.testing.assert_allclose(a.grad, a.grad.T, atol=1e-12)


def test_cholesky_rejects_float16():
    with pytest.raises(type_check.InvalidType, match=r"Cholesky \(Forward\)[\s\S]*a\.dtype in \(float32, float64\)"):
        F.cholesky(numpy.eye(2, dtype=numpy.float16))


def test_cholesky_rejects_non_square_and_wrong_ndim():
    with pytest.raises(type_check.InvalidType, match=r"a\.shape\[0\] == a\.shape\[1\]"):
        F.cholesky(numpy.ones((2, 3), numpy.float32))
    with pytest.raises(type_check.InvalidType, match=r"a\.ndim == 2"):
        F.cholesky(numpy.ones((1, 2, 2), numpy.float32))


def test_cholesky_of_indefinite_matrix_raises():
    with pytest.raises(numpy.linalg.LinAlgError):
        F.cholesky(numpy.array([[1.0, 2.0], [2.0, 1.0]]))
