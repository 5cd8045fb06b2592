import numpy
import pytest
from scipy import stats

import chainer.distributions as D


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(), (3,)])
def test_against_scipy(check, dtype, shape):
    k = numpy.random.uniform(1.0, 6.0, shape).astype(dtype)
    d = D.Chisquare(k)
    ref = stats.chi2(k.astype(numpy.float64))
    x = numpy.random.uniform(0.2, 8.0, (4,) + shape).astype(dtype)
    check.close(d.log_prob(x), ref.logpdf(x), dtype, "log_prob")
    check.close(d.entropy, ref.entropy(), dtype, "entropy")
    check.close(d.mean, ref.mean(), dtype, "mean")
    check.close(d.variance, ref.var(), dtype, "variance")
    check.close(d.mode, numpy.maximum(k - 2, 0), dtype, "mode")
    assert d.support == "positive" and set(d.params) == {"k"}
    assert (d.log_prob(-x).array == -numpy.inf).all()


def test_sampling(check):
    k = numpy.array([1.5, 3.0, 7.0])
    check.sample_moments(D.Chisquare(k), k, 2 * k)


def test_gradients(check):
    k = numpy.random.uniform(1.0, 6.0, 3)
    x = numpy.random.uniform(0.5, 5.0, (2, 3))
    check.gradient(lambda k, x: D.Chisquare(k).log_prob(x), (k, x))
    check.gradient(lambda k: D.Chisquare(k).entropy, (k,))
