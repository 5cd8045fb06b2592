import numpy
import pytest
from scipy import stats

import chainer
import chainer.distributions as D


def _alpha(shape, k=3, dtype=numpy.float64):
    return numpy.random.uniform(1.5, 4.0, shape + (k,)).astype(dtype)


def _simplex(shape, k=3, dtype=numpy.float64):
    x = numpy.random.uniform(0.2, 1.0, shape + (k,))
    return (x / x.sum(-1, keepdims=True)).astype(dtype)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(), (2,)])
def test_against_scipy(check, dtype, shape):
    alpha = _alpha(shape, dtype=dtype)
    d = D.Dirichlet(alpha)
    x = _simplex((4,) + shape, dtype=dtype)
    a64 = alpha.reshape(-1, 3).astype(numpy.float64)
    refs = [stats.dirichlet(a) for a in a64]
    xs = x.reshape(4, -1, 3).astype(numpy.float64)
    xs /= xs.sum(-1, keepdims=True)  # exactly on the simplex in float64, as SciPy requires
    log_prob = numpy.array([[refs[b].logpdf(xs[i, b]) for b in range(len(refs))] for i in range(4)])
    assert d.batch_shape == shape and d.event_shape == (3,)
    check.close(
        d.log_prob(x), log_prob.reshape((4,) + shape), dtype, "log_prob", rtol=1e-9 if dtype == numpy.float64 else 1e-3
    )
    check.close(d.entropy, numpy.array([r.entropy() for r in refs]).reshape(shape), dtype, "entropy")
    check.close(d.mean, numpy.array([r.mean() for r in refs]).reshape(alpha.shape), dtype, "mean")
    check.close(d.variance, numpy.array([r.var() for r in refs]).reshape(alpha.shape), dtype, "variance")
    a0 = alpha.sum(-1, keepdims=True).astype(numpy.float64)
    check.close(d.mode, (alpha - 1) / (a0 - 3), dtype, "mode")
    m = alpha / a0
    cov = (m[..., :, None] * numpy.eye(3) - m[..., :, None] * m[..., None, :]) / (a0[..., None] + 1)
    check.close(d.covariance, cov, dtype, "covariance")


def test_sampling(check):
    alpha = _alpha((2,))
    d = D.Dirichlet(alpha)
    a0 = alpha.sum(-1, keepdims=True)
    x = check.sample_moments(d, alpha / a0, alpha * (a0 - alpha) / (a0**2 * (a0 + 1)))
    numpy.testing.assert_allclose(x.sum(-1), 1.0, rtol=1e-12)


def test_gradients(check):
    alpha = _alpha((2,))
    x = _simplex((2,))
    check.gradient(lambda a, x: D.Dirichlet(a).log_prob(x), (alpha, x))
    check.gradient(lambda a: D.Dirichlet(a).entropy, (alpha,))


def test_kl(check):
    check.kl_monte_carlo(D.Dirichlet(_alpha((2,))), D.Dirichlet(_alpha((2,))))
    check.gradient(lambda a, b: chainer.kl_divergence(D.Dirichlet(a), D.Dirichlet(b)), (_alpha((2,)), _alpha((2,))))


def test_invalid_arguments():
    with pytest.raises(ValueError, match="event axis"):
        D.Dirichlet(numpy.array(1.0))
