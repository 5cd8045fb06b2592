import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]


@testing.parameterize(*testing.product({"dtype": [numpy.float16, numpy.float32, numpy.float64], "shape": [(), (3, 2)]}))
@testing.inject_backend_tests(None, BACKENDS)
class TestGaussianWithEps(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        self.check_double_backward_options = self.check_backward_options
        self.eps = numpy.random.standard_normal(self.shape)

    def generate_inputs(self):
        mean = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        ln_var = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        return mean, ln_var

    def forward(self, inputs, device):
        mean, ln_var = inputs
        eps = device.send(numpy.asarray(self.eps, mean.dtype))
        return (F.gaussian(mean, ln_var, eps=eps),)

    def forward_expected(self, inputs):
        mean, ln_var = (a.astype(numpy.float64) for a in inputs)
        return (numpy.asarray(mean + numpy.sqrt(numpy.exp(ln_var)) * self.eps, self.dtype),)


@testing.fix_random()
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_gaussian_statistics(dtype):
    n = 40000
    mean = numpy.full(n, 1.5, dtype)
    ln_var = numpy.full(n, numpy.log(4.0), dtype)
    y, eps = F.gaussian(mean, ln_var, return_eps=True)
    assert y.dtype == dtype and eps.dtype == dtype and eps.shape == (n,)
    samples = y.array.astype(numpy.float64)
    # Mean 1.5 and standard deviation 2 (tolerances of several standard errors).
    assert abs(samples.mean() - 1.5) < 5 * 2 / numpy.sqrt(n)
    assert abs(samples.std() - 2.0) < 0.05
    numpy.testing.assert_allclose(samples, 1.5 + 2.0 * eps.astype(numpy.float64), rtol=5e-3, atol=5e-3)


def test_gaussian_eps_reuse_and_gradient_values():
    mean = chainer.Variable(numpy.zeros(3))
    ln_var = chainer.Variable(numpy.array([0.0, numpy.log(4.0), numpy.log(9.0)]))
    y, eps = F.gaussian(mean, ln_var, return_eps=True)
    y2 = F.gaussian(mean, ln_var, eps=eps)
    numpy.testing.assert_array_equal(y.array, y2.array)
    F.sum(y).backward()
    numpy.testing.assert_array_equal(mean.grad, numpy.ones(3))
    # d/d ln_var of exp(ln_var / 2) eps = exp(ln_var / 2) eps / 2 = sigma eps / 2.
    numpy.testing.assert_allclose(ln_var.grad, numpy.array([1.0, 2.0, 3.0]) * eps / 2)


def test_gaussian_samples_at_test_time_too():
    mean = numpy.zeros(100, numpy.float32)
    with chainer.using_config("train", False):
        y = F.gaussian(mean, mean)
    assert numpy.count_nonzero(y.array) > 0


def test_gaussian_invalid():
    m = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(type_check.InvalidType, match=r"Gaussian \(Forward\)[\s\S]*mean.shape == ln_var.shape"):
        F.gaussian(m, numpy.zeros((3, 2), numpy.float32))
    with pytest.raises(type_check.InvalidType, match=r"mean.dtype == ln_var.dtype"):
        F.gaussian(m, numpy.zeros((2, 3), numpy.float64))
    with pytest.raises(type_check.InvalidType, match=r"mean.dtype.kind == f"):
        F.gaussian(numpy.zeros(3, numpy.int32), numpy.zeros(3, numpy.int32))
    with pytest.raises(type_check.InvalidType, match=r"mean.shape == eps.shape"):
        F.gaussian(m, m, eps=numpy.zeros(6, numpy.float32))
    with pytest.raises(TypeError, match=r"unexpected keyword argument\(s\) 'mask'"):
        F.gaussian(m, m, mask=None)
