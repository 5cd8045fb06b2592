import numpy
import pytest
from scipy import stats

import chainer
import chainer.distributions as D


def _params(shape, dtype=numpy.float64):
    return numpy.random.uniform(1.0, 4.0, shape).astype(dtype), numpy.random.uniform(0.5, 2.0, shape).astype(dtype)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(), (3,)])
def test_against_scipy(check, dtype, shape):
    k, theta = _params(shape, dtype)
    d = D.Gamma(k, theta)
    ref = stats.gamma(k.astype(numpy.float64), scale=theta.astype(numpy.float64))
    x = numpy.random.uniform(0.2, 6.0, (4,) + shape).astype(dtype)
    check.close(d.log_prob(x), ref.logpdf(x), dtype, "log_prob")
    check.close(d.entropy, ref.entropy(), dtype, "entropy")
    check.close(d.mean, ref.mean(), dtype, "mean")
    check.close(d.variance, ref.var(), dtype, "variance")
    check.close(d.mode, (k.astype(numpy.float64) - 1) * theta, dtype, "mode")
    assert (d.log_prob(-x).array == -numpy.inf).all()


def test_sampling(check):
    k, theta = _params((3,))
    check.sample_moments(D.Gamma(k, theta), k * theta, k * theta**2)


def test_sample_is_differentiable_in_theta():
    theta = chainer.Variable(numpy.array([1.5, 2.0]))
    d = D.Gamma(numpy.array([2.0, 3.0]), theta)
    x = d.sample_n(5)
    chainer.functions.sum(x).backward()
    numpy.testing.assert_allclose(theta.grad, (x.array / theta.array).sum(0), rtol=1e-12)


def test_gradients(check):
    k, theta = _params((3,))
    x = numpy.random.uniform(0.2, 6.0, (2, 3))
    check.gradient(lambda k, theta, x: D.Gamma(k, theta).log_prob(x), (k, theta, x))
    check.gradient(lambda k, theta: D.Gamma(k, theta).entropy, (k, theta))


def test_kl(check):
    check.kl_monte_carlo(D.Gamma(*_params((3,))), D.Gamma(*_params((3,))))
    check.gradient(
        lambda a, b, c, e: chainer.kl_divergence(D.Gamma(a, b), D.Gamma(c, e)), _params((2,)) + _params((2,))
    )
