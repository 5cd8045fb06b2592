import numpy
import pytest
from scipy import stats

import chainer
import chainer.distributions as D


def _bounds(shape, dtype=numpy.float64):
    low = numpy.random.normal(size=shape)
    return low.astype(dtype), (low + numpy.random.uniform(0.5, 2.0, shape)).astype(dtype)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(), (3,)])
@pytest.mark.parametrize("by_loc", [False, True])
def test_against_scipy(check, dtype, shape, by_loc):
    low, high = _bounds(shape, dtype)
    d = D.Uniform(loc=low, scale=(high - low).astype(dtype)) if by_loc else D.Uniform(low=low, high=high)
    ref = stats.uniform(low.astype(numpy.float64), (high - low).astype(numpy.float64))
    t = numpy.random.uniform(0.01, 0.99, (4,) + shape)
    x = (low + t * (high - low)).astype(dtype)
    u = numpy.random.uniform(0.0, 1.0, (4,) + shape).astype(dtype)
    check.close(d.log_prob(x), ref.logpdf(x), dtype, "log_prob")
    check.close(d.cdf(x), ref.cdf(x), dtype, "cdf")
    check.close(d.icdf(u), ref.ppf(u), dtype, "icdf")
    check.close(d.entropy, ref.entropy(), dtype, "entropy")
    check.close(d.mean, ref.mean(), dtype, "mean")
    check.close(d.variance, ref.var(), dtype, "variance")
    check.close(d.stddev, ref.std(), dtype, "stddev")
    assert set(d.params) == {"low", "high"}
    outside = (high + 1).astype(dtype)
    assert (d.log_prob(outside).array == -numpy.inf).all()
    check.close(d.cdf(outside), numpy.ones(shape), dtype, "cdf above")


def test_sampling(check):
    low, high = _bounds((3,))
    x = check.sample_moments(D.Uniform(low=low, high=high), (low + high) / 2, (high - low) ** 2 / 12)
    assert ((x >= low) & (x <= high)).all()


def test_gradients(check):
    low, high = _bounds((3,))
    x = low + 0.4 * (high - low)
    check.gradient(lambda lo, hi: D.Uniform(low=lo, high=hi).log_prob(x), (low, high))
    check.gradient(lambda lo, hi, x: D.Uniform(low=lo, high=hi).cdf(x), (low, high, x))
    check.gradient(lambda lo, hi: check.seeded(lambda: D.Uniform(low=lo, high=hi).sample_n(2)), (low, high))


def test_kl(check):
    low, high = _bounds((3,))
    wide_low, wide_high = low - numpy.random.uniform(0.1, 1.0, 3), high + numpy.random.uniform(0.1, 1.0, 3)
    p, q = D.Uniform(low=low, high=high), D.Uniform(low=wide_low, high=wide_high)
    check.kl_monte_carlo(p, q)
    check.gradient(
        lambda a, b, c, e: chainer.kl_divergence(D.Uniform(low=a, high=b), D.Uniform(low=c, high=e)),
        (low, high, wide_low, wide_high),
    )
    assert (chainer.kl_divergence(q, p).array == numpy.inf).all()


def test_invalid_arguments():
    with pytest.raises(ValueError, match="either low and high, or loc and scale"):
        D.Uniform(low=numpy.zeros(2))
    with pytest.raises(ValueError, match="either low and high, or loc and scale"):
        D.Uniform(low=numpy.zeros(2), scale=numpy.ones(2))
    with pytest.raises(TypeError, match="unexpected keyword"):
        D.Uniform(lo=numpy.zeros(2), high=numpy.ones(2))
