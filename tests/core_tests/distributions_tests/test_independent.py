import numpy
import pytest
from scipy import stats

import chainer
import chainer.distributions as D


def _normal(shape):
    return D.Normal(numpy.random.normal(size=shape), numpy.random.uniform(0.5, 2.0, shape))


@pytest.mark.parametrize("ndims,batch,event", [(2, (), (2, 3)), (1, (2,), (3,)), (0, (2, 3), ())])
def test_shapes_and_sums(check, ndims, batch, event):
    base = _normal((2, 3))
    d = D.Independent(base, ndims)
    assert d.batch_shape == batch and d.event_shape == event
    x = numpy.random.normal(size=(4, 2, 3))
    ref = stats.norm(base.loc.array, base.scale.array)
    axes = tuple(range(3 - len(event), 3)) if event else ()
    check.close(d.log_prob(x), ref.logpdf(x).sum(axis=axes), numpy.float64, "log_prob")
    check.close(d.prob(x), numpy.exp(ref.logpdf(x).sum(axis=axes)), numpy.float64, "prob")
    check.close(d.cdf(x), ref.cdf(x).prod(axis=axes), numpy.float64, "cdf")
    check.close(d.log_cdf(x), ref.logcdf(x).sum(axis=axes), numpy.float64, "log_cdf")
    check.close(d.survival_function(x), ref.sf(x).prod(axis=axes), numpy.float64, "survival_function")
    check.close(d.log_survival_function(x), ref.logsf(x).sum(axis=axes), numpy.float64, "log_survival")
    ent_axes = tuple(range(2 - len(event), 2)) if event else ()
    check.close(d.entropy, ref.entropy().sum(axis=ent_axes), numpy.float64, "entropy")
    check.close(d.mean, ref.mean(), numpy.float64, "mean")
    check.close(d.variance, ref.var(), numpy.float64, "variance")
    check.close(d.stddev, ref.std(), numpy.float64, "stddev")
    u = numpy.random.uniform(0.1, 0.9, (2, 3))
    check.close(d.icdf(u), ref.ppf(u), numpy.float64, "icdf", rtol=1e-8)
    assert d.sample_n(5).shape == (5, 2, 3)
    assert d.params == base.params and d.support == "real"


@pytest.mark.parametrize("batch_shape, ndims", [((2, 3, 4), 2), ((2, 3), 1), ((5,), 0), ((), 0)])
def test_reinterpreted_batch_ndims_none_keeps_the_first_batch_axis(batch_shape, ndims):
    # None reinterprets every batch axis but the first: max(0, batch_ndim - 1).
    d = D.Independent(_normal(batch_shape))
    assert d.reinterpreted_batch_ndims == ndims
    assert d.batch_shape == batch_shape[: len(batch_shape) - ndims]
    assert d.event_shape == batch_shape[len(batch_shape) - ndims :]


def test_diagonal_normal_matches_multivariate_normal(check):
    loc = numpy.random.normal(size=(2, 3))
    scale = numpy.random.uniform(0.5, 2.0, (2, 3))
    diag = D.Independent(D.Normal(loc, scale), 1)
    mvn = D.MultivariateNormal(loc, scale_tril=scale[..., None] * numpy.eye(3))
    x = numpy.random.normal(size=(4, 2, 3))
    check.close(diag.log_prob(x), mvn.log_prob(x).array, numpy.float64, "log_prob")
    check.close(diag.entropy, mvn.entropy.array, numpy.float64, "entropy")
    check.close(diag.covariance, mvn.covariance.array, numpy.float64, "covariance")


def test_block_diagonal_covariance(check):
    a = numpy.random.normal(size=(2, 3, 3))
    tril = numpy.linalg.cholesky(a @ a.transpose(0, 2, 1) + 3 * numpy.eye(3))
    mvn = D.MultivariateNormal(numpy.zeros((2, 3)), scale_tril=tril)
    d = D.Independent(mvn, 1)
    assert d.event_shape == (2, 3)
    cov = numpy.zeros((6, 6))
    cov[:3, :3] = tril[0] @ tril[0].T
    cov[3:, 3:] = tril[1] @ tril[1].T
    check.close(d.covariance, cov, numpy.float64, "covariance")


def test_gradients(check):
    x = numpy.random.normal(size=(4, 2, 3))
    check.gradient(
        lambda loc, scale: D.Independent(D.Normal(loc, scale), 1).log_prob(x),
        (numpy.random.normal(size=(2, 3)), numpy.random.uniform(0.5, 2.0, (2, 3))),
    )


def test_kl(check):
    p = D.Independent(_normal((2, 3)), 1)
    q = D.Independent(_normal((2, 3)), 1)
    check.kl_monte_carlo(p, q)
    expected = chainer.kl_divergence(p.distribution, q.distribution).array.sum(axis=-1)
    check.close(chainer.kl_divergence(p, q), expected, numpy.float64, "kl")
    with pytest.raises(ValueError, match="different reinterpreted_batch_ndims"):
        chainer.kl_divergence(D.Independent(_normal((2, 3)), 1), D.Independent(_normal((2, 3)), 2))


def test_invalid_arguments():
    with pytest.raises(TypeError, match="must be a chainer.Distribution"):
        D.Independent(numpy.zeros(3))
    with pytest.raises(ValueError, match=r"in \[0, 2\]"):
        D.Independent(_normal((2, 3)), 3)
    with pytest.raises(TypeError, match="int or None"):
        D.Independent(_normal((2, 3)), 1.0)
