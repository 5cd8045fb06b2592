import numpy
import pytest
from scipy import stats

import chainer.distributions as D


def _params(shape, dtype=numpy.float64):
    return numpy.random.normal(size=shape).astype(dtype), numpy.random.uniform(0.5, 2.0, shape).astype(dtype)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(), (3,)])
def test_against_scipy(check, dtype, shape):
    loc, scale = _params(shape, dtype)
    d = D.Cauchy(loc, scale)
    ref = stats.cauchy(loc.astype(numpy.float64), scale.astype(numpy.float64))
    x = numpy.random.normal(scale=3, size=(4,) + shape).astype(dtype)
    u = numpy.random.uniform(0.1, 0.9, (4,) + shape).astype(dtype)
    check.close(d.log_prob(x), ref.logpdf(x), dtype, "log_prob")
    check.close(d.cdf(x), ref.cdf(x), dtype, "cdf")
    check.close(d.icdf(u), ref.ppf(u), dtype, "icdf", rtol=1e-8 if dtype == numpy.float64 else 1e-3)
    check.close(d.entropy, ref.entropy(), dtype, "entropy")
    check.close(d.mode, loc, dtype, "mode")
    assert d.support == "real"


def test_mean_and_variance_are_undefined():
    d = D.Cauchy(numpy.zeros(2), numpy.ones(2))
    with pytest.warns(RuntimeWarning, match="mean of the Cauchy distribution is undefined"):
        assert numpy.isnan(d.mean.array).all()
    with pytest.warns(RuntimeWarning, match="variance"):
        assert numpy.isnan(d.variance.array).all()


def test_sampling_quantiles(check):
    loc, scale = _params((3,))
    d = D.Cauchy(loc, scale)
    x = check.to_numpy(d.sample(check.N))
    for q in (0.1, 0.5, 0.8):
        check.empirical_cdf(x, loc + scale * numpy.tan(numpy.pi * (q - 0.5)), numpy.full(3, q))


def test_gradients(check):
    loc, scale = _params((3,))
    x = numpy.random.normal(size=(2, 3))
    check.gradient(lambda loc, scale, x: D.Cauchy(loc, scale).log_prob(x), (loc, scale, x))
    check.gradient(lambda loc, scale, x: D.Cauchy(loc, scale).cdf(x), (loc, scale, x))
    check.gradient(lambda loc, scale: check.seeded(lambda: D.Cauchy(loc, scale).sample_n(2)), (loc, scale))
