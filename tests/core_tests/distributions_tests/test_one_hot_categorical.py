import numpy
import pytest
from scipy import stats

import chainer
import chainer.distributions as D


def _p(shape, k=4, dtype=numpy.float64):
    p = numpy.random.uniform(0.2, 1.0, shape + (k,))
    return (p / p.sum(axis=-1, keepdims=True)).astype(dtype)


def _one_hot(shape, k=4, dtype=numpy.float64):
    return numpy.eye(k, dtype=dtype)[numpy.random.randint(0, k, shape)]


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(), (2,)])
def test_against_scipy(check, dtype, shape):
    p = _p(shape, dtype=dtype)
    d = D.OneHotCategorical(p)
    x = _one_hot((5,) + shape, dtype=dtype)
    p64 = p.reshape(-1, 4).astype(numpy.float64)
    p64 /= p64.sum(-1, keepdims=True)
    refs = [stats.multinomial(1, q) for q in p64]
    xs = x.reshape(5, -1, 4)
    log_prob = numpy.array([[r.logpmf(xs[i, b]) for b, r in enumerate(refs)] for i in range(5)])
    assert d.batch_shape == shape and d.event_shape == (4,)
    check.close(d.log_prob(x), log_prob.reshape((5,) + shape), dtype, "log_prob")
    check.close(d.entropy, numpy.array([r.entropy() for r in refs]).reshape(shape), dtype, "entropy")
    check.close(d.mean, p, dtype, "mean")
    p = p.astype(numpy.float64)
    check.close(d.variance, p * (1 - p), dtype, "variance")
    cov = numpy.array([r.cov() for r in refs]).reshape(shape + (4, 4))
    check.close(d.covariance, cov, dtype, "covariance")


def test_zero_probability_classes():
    d = D.OneHotCategorical(numpy.array([0.0, 0.25, 0.75]))
    lp = d.log_prob(numpy.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])).array
    numpy.testing.assert_allclose(lp[0], numpy.log(0.25), rtol=1e-12)
    assert lp[1] == -numpy.inf
    numpy.testing.assert_allclose(d.entropy.array, -(0.25 * numpy.log(0.25) + 0.75 * numpy.log(0.75)), rtol=1e-12)


def test_sampling(check):
    p = _p((2,))
    d = D.OneHotCategorical(p)
    x = check.sample_moments(d, p, p * (1 - p))
    assert d.sample_n(1).dtype == numpy.float64
    numpy.testing.assert_array_equal(x.sum(-1), 1.0)


def test_gradients(check):
    x = _one_hot((3, 2))
    check.gradient(lambda p: D.OneHotCategorical(p).log_prob(x), (_p((2,)),))
    check.gradient(lambda p: D.OneHotCategorical(p).entropy, (_p((2,)),))


def test_kl(check):
    check.kl_monte_carlo(D.OneHotCategorical(_p((3,))), D.OneHotCategorical(_p((3,))))
    check.gradient(
        lambda a, b: chainer.kl_divergence(D.OneHotCategorical(a), D.OneHotCategorical(b)), (_p((2,)), _p((2,)))
    )
