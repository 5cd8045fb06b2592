import numpy
import pytest
from scipy import stats

import chainer
import chainer.distributions as D


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(), (3,)])
def test_against_scipy(check, dtype, shape):
    lam = numpy.random.uniform(0.5, 6.0, shape).astype(dtype)
    d = D.Poisson(lam)
    ref = stats.poisson(lam.astype(numpy.float64))
    x = numpy.random.randint(0, 8, (4,) + shape)
    check.close(d.log_prob(x), ref.logpmf(x), dtype, "log_prob")
    check.close(d.mean, ref.mean(), dtype, "mean")
    check.close(d.variance, ref.var(), dtype, "variance")
    check.close(d.mode, numpy.floor(lam), dtype, "mode")
    assert d.support == "non negative integer"


def test_outside_support_and_entropy():
    d = D.Poisson(numpy.array([2.0, 2.0]))
    assert (d.log_prob(numpy.array([-1.0, 0.5])).array == -numpy.inf).all()
    with pytest.raises(NotImplementedError, match="no closed form"):
        _ = d.entropy


def test_sampling(check):
    lam = numpy.array([0.5, 3.0, 10.0])
    d = D.Poisson(lam)
    assert d.sample_n(2).dtype == numpy.int32
    check.sample_moments(d, lam, lam)


def test_gradients(check):
    lam = numpy.random.uniform(0.5, 6.0, 3)
    x = numpy.random.randint(0, 8, (2, 3))
    check.gradient(lambda lam: D.Poisson(lam).log_prob(x), (lam,))


def test_kl(check):
    a, b = numpy.random.uniform(0.5, 6.0, (2, 3))
    check.kl_monte_carlo(D.Poisson(a), D.Poisson(b))
    check.gradient(lambda a, b: chainer.kl_divergence(D.Poisson(a), D.Poisson(b)), (a, b))
