import numpy
import pytest
from scipy import stats

import chainer
import chainer.distributions as D

DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _p(shape, dtype=numpy.float64):
    return numpy.random.uniform(0.1, 0.9, shape).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
@pytest.mark.parametrize("by_logit", [False, True])
def test_against_scipy(check, dtype, shape, by_logit):
    p = _p(shape, dtype)
    d = D.Bernoulli(logit=numpy.log(p) - numpy.log1p(-p)) if by_logit else D.Bernoulli(p)
    ref = stats.bernoulli(p.astype(numpy.float64))
    x = numpy.random.randint(0, 2, (4,) + shape).astype(numpy.int32)
    assert d.batch_shape == shape and d.event_shape == ()
    check.close(d.log_prob(x), ref.logpmf(x), dtype, "log_prob")
    check.close(d.prob(x), ref.pmf(x), dtype, "prob")
    check.close(d.cdf(x - 0.5), ref.cdf(x - 0.5), dtype, "cdf")
    check.close(d.entropy, ref.entropy(), dtype, "entropy")
    check.close(d.mean, ref.mean(), dtype, "mean")
    check.close(d.variance, ref.var(), dtype, "variance")
    check.close(d.stddev, ref.std(), dtype, "stddev")
    check.close(d.p, p, dtype, "p")
    check.close(d.logit, numpy.log(p / (1 - p)), dtype, "logit", rtol=1e-8 if dtype == numpy.float64 else 1e-3)


def test_relaxed_points_and_binary_check():
    p = numpy.array([0.2, 0.7])
    x = numpy.array([0.25, 0.5])
    expected = x * numpy.log(p) + (1 - x) * numpy.log1p(-p)
    numpy.testing.assert_allclose(D.Bernoulli(p).log_prob(x).array, expected, rtol=1e-12)
    checked = D.Bernoulli(p, binary_check=True).log_prob(numpy.array([0.25, 1.0])).array
    assert checked[0] == -numpy.inf
    numpy.testing.assert_allclose(checked[1], numpy.log(0.7), rtol=1e-12)


def test_extreme_logits_stay_finite():
    d = D.Bernoulli(logit=numpy.array([-800.0, 800.0]))
    lp = d.log_prob(numpy.array([0, 1])).array
    numpy.testing.assert_allclose(lp, [0.0, 0.0], atol=1e-300)
    lp = d.log_prob(numpy.array([1, 0])).array
    numpy.testing.assert_allclose(lp, [-800.0, -800.0], rtol=1e-12)


def test_sampling(check):
    p = _p((3,))
    d = D.Bernoulli(p)
    x = d.sample_n(5)
    assert x.dtype == numpy.int32 and set(numpy.unique(x.array)) <= {0, 1}
    check.sample_moments(d, p, p * (1 - p))


def test_gradients(check):
    p = _p((3,))
    x = numpy.random.randint(0, 2, (2, 3))
    check.gradient(lambda p: D.Bernoulli(p).log_prob(x), (p,))
    check.gradient(lambda logit: D.Bernoulli(logit=logit).log_prob(x), (numpy.log(p / (1 - p)),))
    check.gradient(lambda p: D.Bernoulli(p).entropy, (p,))


def test_kl(check):
    p, q = D.Bernoulli(_p((3,))), D.Bernoulli(logit=numpy.random.normal(size=3))
    check.kl_monte_carlo(p, q)
    check.gradient(
        lambda a, b: chainer.kl_divergence(D.Bernoulli(a), D.Bernoulli(logit=b)),
        (_p((3,)), numpy.random.normal(size=3)),
    )


def test_invalid_arguments():
    with pytest.raises(ValueError, match="exactly one of p and logit"):
        D.Bernoulli()
    with pytest.raises(ValueError, match="exactly one of p and logit"):
        D.Bernoulli(numpy.ones(1, "f"), numpy.ones(1, "f"))
    assert D.Bernoulli(logit=numpy.zeros(2, "f")).params.keys() == {"logit"}
    assert D.Bernoulli(numpy.ones(2, "f") / 2).support == "{0, 1}"
