import numpy
import pytest
from scipy import stats

import chainer
import chainer.distributions as D


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(), (3,)])
def test_against_scipy(check, dtype, shape):
    lam = numpy.random.uniform(0.5, 3.0, shape).astype(dtype)
    d = D.Exponential(lam)
    ref = stats.expon(scale=1.0 / lam.astype(numpy.float64))
    x = numpy.random.uniform(0.1, 3.0, (4,) + shape).astype(dtype)
    u = numpy.random.uniform(0.05, 0.95, (4,) + shape).astype(dtype)
    check.close(d.log_prob(x), ref.logpdf(x), dtype, "log_prob")
    check.close(d.cdf(x), ref.cdf(x), dtype, "cdf")
    check.close(d.survival_function(x), ref.sf(x), dtype, "survival_function")
    check.close(d.log_survival_function(x), ref.logsf(x), dtype, "log_survival_function")
    check.close(d.icdf(u), ref.ppf(u), dtype, "icdf")
    check.close(d.entropy, ref.entropy(), dtype, "entropy")
    check.close(d.mean, ref.mean(), dtype, "mean")
    check.close(d.variance, ref.var(), dtype, "variance")
    check.close(d.stddev, ref.std(), dtype, "stddev")
    check.close(d.mode, numpy.zeros(shape), dtype, "mode")
    assert (d.log_prob(-x).array == -numpy.inf).all()
    check.close(d.cdf(-x), numpy.zeros((4,) + shape), dtype, "cdf below 0")


def test_sampling(check):
    lam = numpy.array([0.5, 1.0, 3.0])
    x = check.sample_moments(D.Exponential(lam), 1 / lam, 1 / lam**2)
    assert (x >= 0).all()


def test_gradients(check):
    lam = numpy.random.uniform(0.5, 3.0, 3)
    x = numpy.random.uniform(0.1, 3.0, (2, 3))
    check.gradient(lambda lam, x: D.Exponential(lam).log_prob(x), (lam, x))
    check.gradient(lambda lam, x: D.Exponential(lam).cdf(x), (lam, x))
    check.gradient(lambda lam: D.Exponential(lam).entropy, (lam,))


def test_kl(check):
    a, b = numpy.random.uniform(0.5, 3.0, (2, 3))
    check.kl_monte_carlo(D.Exponential(a), D.Exponential(b))
    check.gradient(lambda a, b: chainer.kl_divergence(D.Exponential(a), D.Exponential(b)), (a, b))
    expected = numpy.log(a / b) + b / a - 1
    check.close(chainer.kl_divergence(D.Exponential(a), D.Exponential(b)), expected, numpy.float64, "kl")
