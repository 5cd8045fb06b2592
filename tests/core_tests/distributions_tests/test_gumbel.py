import numpy
import pytest
from scipy import stats

import chainer
import chainer.distributions as D


def _params(shape, dtype=numpy.float64):
    return numpy.random.normal(size=shape).astype(dtype), numpy.random.uniform(0.5, 2.0, shape).astype(dtype)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(), (3,)])
def test_against_scipy(check, dtype, shape):
    loc, scale = _params(shape, dtype)
    d = D.Gumbel(loc, scale)
    ref = stats.gumbel_r(loc.astype(numpy.float64), scale.astype(numpy.float64))
    x = numpy.random.normal(scale=2.0, size=(4,) + shape).astype(dtype)
    u = numpy.random.uniform(0.05, 0.95, (4,) + shape).astype(dtype)
    check.close(d.log_prob(x), ref.logpdf(x), dtype, "log_prob")
    check.close(d.cdf(x), ref.cdf(x), dtype, "cdf")
    check.close(d.log_cdf(x), ref.logcdf(x), dtype, "log_cdf")
    check.close(d.icdf(u), ref.ppf(u), dtype, "icdf", rtol=1e-8 if dtype == numpy.float64 else 1e-3)
    check.close(d.entropy, ref.entropy(), dtype, "entropy")
    check.close(d.mean, ref.mean(), dtype, "mean")
    check.close(d.variance, ref.var(), dtype, "variance")
    check.close(d.mode, loc, dtype, "mode")


def test_sampling(check):
    loc, scale = _params((3,))
    d = D.Gumbel(loc, scale)
    check.sample_moments(d, loc + numpy.euler_gamma * scale, numpy.pi**2 / 6 * scale**2)


def test_gradients(check):
    loc, scale = _params((3,))
    x = numpy.random.normal(size=(2, 3))
    check.gradient(lambda loc, scale, x: D.Gumbel(loc, scale).log_prob(x), (loc, scale, x))
    check.gradient(lambda loc, scale, x: D.Gumbel(loc, scale).cdf(x), (loc, scale, x))


def test_kl(check):
    check.kl_monte_carlo(D.Gumbel(*_params((3,))), D.Gumbel(*_params((3,))))
    check.gradient(
        lambda a, b, c, e: chainer.kl_divergence(D.Gumbel(a, b), D.Gumbel(c, e)), _params((2,)) + _params((2,))
    )


def test_euler_constant_is_the_mean_of_a_standard_gumbel():
    from chainer.distributions import gumbel

    assert gumbel.EULER == pytest.approx(stats.gumbel_r.mean(), rel=1e-14)
