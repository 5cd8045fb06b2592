import numpy
import pytest
from scipy import stats

import chainer
import chainer.distributions as D


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(), (3,)])
def test_against_scipy(check, dtype, shape):
    p = numpy.random.uniform(0.2, 0.8, shape).astype(dtype)
    d = D.Geometric(p)
    ref = stats.geom(p.astype(numpy.float64))
    x = numpy.random.randint(1, 6, (4,) + shape)
    check.close(d.log_prob(x), ref.logpmf(x), dtype, "log_prob")
    check.close(d.entropy, ref.entropy(), dtype, "entropy")
    check.close(d.mean, ref.mean(), dtype, "mean")
    check.close(d.variance, ref.var(), dtype, "variance")
    check.close(d.mode, numpy.ones(shape), dtype, "mode")
    assert d.support == "positive integer"


def test_outside_support():
    d = D.Geometric(numpy.array([0.5, 0.5, 0.5]))
    assert (d.log_prob(numpy.array([0.0, 1.5, -2.0])).array == -numpy.inf).all()


def test_sampling(check):
    p = numpy.array([0.2, 0.5, 0.9])
    d = D.Geometric(p)
    assert d.sample_n(2).dtype == numpy.int32
    x = check.sample_moments(d, 1 / p, (1 - p) / p**2)
    assert (x >= 1).all()


def test_gradients(check):
    p = numpy.random.uniform(0.2, 0.8, 3)
    x = numpy.random.randint(1, 6, (2, 3))
    check.gradient(lambda p: D.Geometric(p).log_prob(x), (p,))
    check.gradient(lambda p: D.Geometric(p).entropy, (p,))


def test_kl(check):
    a, b = numpy.random.uniform(0.2, 0.8, (2, 3))
    check.kl_monte_carlo(D.Geometric(a), D.Geometric(b))
    check.gradient(lambda a, b: chainer.kl_divergence(D.Geometric(a), D.Geometric(b)), (a, b))
