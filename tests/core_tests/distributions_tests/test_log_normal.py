import numpy
import pytest
from scipy import stats

import chainer
import chainer.distributions as D


def _params(shape, dtype=numpy.float64):
    return numpy.random.normal(scale=0.5, size=shape).astype(dtype), numpy.random.uniform(0.3, 0.8, shape).astype(dtype)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(), (3,)])
def test_against_scipy(check, dtype, shape):
    mu, sigma = _params(shape, dtype)
    d = D.LogNormal(mu, sigma)
    ref = stats.lognorm(sigma.astype(numpy.float64), scale=numpy.exp(mu.astype(numpy.float64)))
    x = numpy.random.uniform(0.2, 4.0, (4,) + shape).astype(dtype)
    u = numpy.random.uniform(0.05, 0.95, (4,) + shape).astype(dtype)
    check.close(d.log_prob(x), ref.logpdf(x), dtype, "log_prob")
    check.close(d.cdf(x), ref.cdf(x), dtype, "cdf")
    check.close(d.icdf(u), ref.ppf(u), dtype, "icdf", rtol=1e-8 if dtype == numpy.float64 else 1e-3)
    check.close(d.entropy, ref.entropy(), dtype, "entropy")
    check.close(d.mean, ref.mean(), dtype, "mean")
    check.close(d.variance, ref.var(), dtype, "variance")
    check.close(d.median, ref.median(), dtype, "median")
    check.close(d.mode, numpy.exp(mu.astype(numpy.float64) - sigma.astype(numpy.float64) ** 2), dtype, "mode")
    assert (d.log_prob(-x).array == -numpy.inf).all()
    check.close(d.cdf(-x), numpy.zeros((4,) + shape), dtype, "cdf at negative points")


def test_sampling(check):
    mu, sigma = _params((3,))
    mean = numpy.exp(mu + sigma**2 / 2)
    check.sample_moments(D.LogNormal(mu, sigma), mean, numpy.expm1(sigma**2) * mean**2)


def test_gradients(check):
    mu, sigma = _params((3,))
    x = numpy.random.uniform(0.2, 4.0, (2, 3))
    check.gradient(lambda mu, sigma, x: D.LogNormal(mu, sigma).log_prob(x), (mu, sigma, x))
    check.gradient(lambda mu, sigma: check.seeded(lambda: D.LogNormal(mu, sigma).sample_n(2)), (mu, sigma))


def test_kl(check):
    check.kl_monte_carlo(D.LogNormal(*_params((3,))), D.LogNormal(*_params((3,))))
    check.gradient(
        lambda a, b, c, e: chainer.kl_divergence(D.LogNormal(a, b), D.LogNormal(c, e)), _params((2,)) + _params((2,))
    )
