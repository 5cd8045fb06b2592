import numpy
import pytest
from scipy import stats

import chainer
import chainer.distributions as D


def _ab(shape, dtype=numpy.float64):
    return (numpy.random.uniform(1.5, 4.0, shape).astype(dtype), numpy.random.uniform(1.5, 4.0, shape).astype(dtype))


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(), (3,)])
def test_against_scipy(check, dtype, shape):
    a, b = _ab(shape, dtype)
    d = D.Beta(a, b)
    ref = stats.beta(a.astype(numpy.float64), b.astype(numpy.float64))
    x = numpy.random.uniform(0.05, 0.95, (4,) + shape).astype(dtype)
    check.close(d.log_prob(x), ref.logpdf(x), dtype, "log_prob")
    check.close(d.entropy, ref.entropy(), dtype, "entropy")
    check.close(d.mean, ref.mean(), dtype, "mean")
    check.close(d.variance, ref.var(), dtype, "variance")
    check.close(d.mode, (a - 1.0) / (a + b - 2.0), dtype, "mode")
    assert d.support == "[0, 1]" and set(d.params) == {"a", "b"}


def test_outside_support():
    d = D.Beta(numpy.array([2.0, 2.0]), numpy.array([3.0, 3.0]))
    lp = d.log_prob(numpy.array([-0.5, 1.5])).array
    assert (lp == -numpy.inf).all()


def test_sampling(check):
    a, b = _ab((3,))
    d = D.Beta(a, b)
    x = check.sample_moments(d, a / (a + b), a * b / ((a + b) ** 2 * (a + b + 1)))
    assert ((x >= 0) & (x <= 1)).all()


def test_gradients(check):
    a, b = _ab((3,))
    x = numpy.random.uniform(0.1, 0.9, (2, 3))
    check.gradient(lambda a, b, x: D.Beta(a, b).log_prob(x), (a, b, x))
    check.gradient(lambda a, b: D.Beta(a, b).entropy, (a, b))


def test_kl(check):
    check.kl_monte_carlo(D.Beta(*_ab((3,))), D.Beta(*_ab((3,))))
    check.gradient(lambda a, b, c, e: chainer.kl_divergence(D.Beta(a, b), D.Beta(c, e)), _ab((2,)) + _ab((2,)))
