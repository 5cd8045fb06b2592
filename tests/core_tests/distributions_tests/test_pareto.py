import numpy
import pytest
from scipy import stats

import chainer
import chainer.distributions as D


def _params(shape, dtype=numpy.float64):
    return numpy.random.uniform(0.5, 2.0, shape).astype(dtype), numpy.random.uniform(4.5, 7.0, shape).astype(dtype)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(), (3,)])
def test_against_scipy(check, dtype, shape):
    scale, alpha = _params(shape, dtype)
    d = D.Pareto(scale, alpha)
    ref = stats.pareto(alpha.astype(numpy.float64), scale=scale.astype(numpy.float64))
    x = (scale * numpy.random.uniform(1.01, 3.0, (4,) + shape)).astype(dtype)
    u = numpy.random.uniform(0.05, 0.95, (4,) + shape).astype(dtype)
    check.close(d.log_prob(x), ref.logpdf(x), dtype, "log_prob")
    check.close(d.cdf(x), ref.cdf(x), dtype, "cdf", rtol=1e-8 if dtype == numpy.float64 else 1e-3)
    check.close(d.icdf(u), ref.ppf(u), dtype, "icdf", rtol=1e-8 if dtype == numpy.float64 else 1e-3)
    check.close(d.entropy, ref.entropy(), dtype, "entropy")
    check.close(d.mean, ref.mean(), dtype, "mean")
    check.close(d.variance, ref.var(), dtype, "variance")
    check.close(d.mode, scale, dtype, "mode")
    below = (scale * 0.9).astype(dtype)
    assert (d.log_prob(below).array == -numpy.inf).all()
    assert (d.cdf(below).array == 0).all()


def test_infinite_moments():
    d = D.Pareto(numpy.array([1.0, 1.0, 1.0]), numpy.array([0.5, 1.5, 3.0]))
    mean, variance = d.mean.array, d.variance.array
    assert mean[0] == numpy.inf and numpy.isfinite(mean[1:]).all()
    assert (variance[:2] == numpy.inf).all() and numpy.isfinite(variance[2])


def test_sampling(check):
    scale, alpha = _params((3,))
    d = D.Pareto(scale, alpha)
    x = check.sample_moments(d, alpha * scale / (alpha - 1), scale**2 * alpha / ((alpha - 1) ** 2 * (alpha - 2)))
    assert (x >= scale).all()


def test_gradients(check):
    scale, alpha = _params((3,))
    x = scale * numpy.random.uniform(1.1, 3.0, (2, 3))
    check.gradient(lambda s, a, x: D.Pareto(s, a).log_prob(x), (scale, alpha, x))
    check.gradient(lambda s, a: D.Pareto(s, a).mean + D.Pareto(s, a).variance, (scale, alpha))
    check.gradient(lambda s, a: check.seeded(lambda: D.Pareto(s, a).sample_n(2)), (scale, alpha))


def test_kl(check):
    s1, a1 = _params((3,))
    s2, a2 = _params((3,))
    s2 = numpy.minimum(s1, s2) * 0.8
    check.kl_monte_carlo(D.Pareto(s1, a1), D.Pareto(s2, a2))
    check.gradient(lambda a, b, c, e: chainer.kl_divergence(D.Pareto(a, b), D.Pareto(c, e)), (s1, a1, s2, a2))
    # p gives mass where q has none
    kl = chainer.kl_divergence(D.Pareto(s2, a1), D.Pareto(s1, a2)).array
    assert (kl == numpy.inf).all()
