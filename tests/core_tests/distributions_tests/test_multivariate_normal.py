import numpy
import pytest
from scipy import stats

import chainer
import chainer.distributions as D


def _params(shape, d=3, dtype=numpy.float64):
    loc = numpy.random.normal(size=shape + (d,))
    a = numpy.random.normal(size=shape + (d, d))
    cov = a @ numpy.swapaxes(a, -1, -2) + d * numpy.eye(d)
    return loc.astype(dtype), numpy.linalg.cholesky(cov).astype(dtype)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(), (2,)])
def test_against_scipy(check, dtype, shape):
    loc, tril = _params(shape, dtype=dtype)
    d = D.MultivariateNormal(loc, scale_tril=tril)
    x = numpy.random.normal(size=(4,) + shape + (3,)).astype(dtype)
    loc64 = loc.reshape(-1, 3).astype(numpy.float64)
    tril64 = tril.reshape(-1, 3, 3).astype(numpy.float64)
    covs = tril64 @ numpy.swapaxes(tril64, -1, -2)
    refs = [stats.multivariate_normal(m, c) for m, c in zip(loc64, covs)]
    xs = x.reshape(4, -1, 3).astype(numpy.float64)
    log_prob = numpy.array([[r.logpdf(xs[i, b]) for b, r in enumerate(refs)] for i in range(4)])
    assert d.batch_shape == shape and d.event_shape == (3,)
    check.close(d.log_prob(x), log_prob.reshape((4,) + shape), dtype, "log_prob")
    check.close(d.entropy, numpy.array([r.entropy() for r in refs]).reshape(shape), dtype, "entropy")
    check.close(d.mean, loc, dtype, "mean")
    check.close(d.covariance, covs.reshape(shape + (3, 3)), dtype, "covariance")
    check.close(d.variance, numpy.diagonal(covs, 0, -2, -1).reshape(shape + (3,)), dtype, "variance")


def test_upper_triangle_is_ignored():
    loc, tril = _params(())
    noisy = tril + numpy.triu(numpy.ones((3, 3)), 1)
    x = numpy.random.normal(size=3)
    a = D.MultivariateNormal(loc, scale_tril=tril).log_prob(x).array
    b = D.MultivariateNormal(loc, scale_tril=noisy).log_prob(x).array
    numpy.testing.assert_allclose(a, b, rtol=1e-12)


def test_sampling(check):
    loc, tril = _params((2,))
    d = D.MultivariateNormal(loc, scale_tril=tril)
    cov = tril @ numpy.swapaxes(tril, -1, -2)
    x = check.sample_moments(d, loc, numpy.diagonal(cov, 0, -2, -1))
    c = x - x.mean(0)
    sample_cov = numpy.einsum("nbi,nbj->bij", c, c) / len(x)
    numpy.testing.assert_allclose(sample_cov, cov, atol=0.05 * numpy.abs(cov).max())


def test_gradients(check):
    loc, tril = _params((2,))
    x = numpy.random.normal(size=(3, 2, 3))
    check.gradient(lambda loc, tril: D.MultivariateNormal(loc, scale_tril=tril).log_prob(x), (loc, tril))
    check.gradient(lambda tril: D.MultivariateNormal(loc, scale_tril=tril).entropy, (tril,))
    check.gradient(
        lambda loc, tril: check.seeded(lambda: D.MultivariateNormal(loc, scale_tril=tril).sample_n(2)), (loc, tril)
    )


def test_kl(check):
    l1, t1 = _params((2,))
    l2, t2 = _params((2,))
    check.kl_monte_carlo(D.MultivariateNormal(l1, scale_tril=t1), D.MultivariateNormal(l2, scale_tril=t2))
    l1, t1 = _params((2,))
    l2, t2 = _params((2,))
    check.gradient(
        lambda l1, t1, l2, t2: chainer.kl_divergence(
            D.MultivariateNormal(l1, scale_tril=t1), D.MultivariateNormal(l2, scale_tril=t2)
        ),
        (l1, t1, l2, t2),
    )


def test_invalid_arguments():
    with pytest.raises(ValueError, match="scale_tril .* is required"):
        D.MultivariateNormal(numpy.zeros(3))
    with pytest.raises(ValueError, match=r"scale_tril must have shape batch_shape \+ \(3, 3\)"):
        D.MultivariateNormal(numpy.zeros(3), scale_tril=numpy.eye(2))
    with pytest.raises(TypeError, match="unexpected keyword"):
        D.MultivariateNormal(numpy.zeros(3), scale=numpy.eye(3))
    d = D.MultivariateNormal(numpy.zeros(3), scale_tril=numpy.eye(3))
    with pytest.raises(ValueError, match="event axis of size 3"):
        d.log_prob(numpy.zeros(2))


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("d", [3, 1, 0])
def test_triangular_inv(check, lower, d):
    from chainer.distributions import multivariate_normal as mvn

    x = numpy.tril(numpy.random.normal(size=(d, d))) + 3 * numpy.eye(d)
    if not lower:
        x = x.T
    y = mvn._triangular_inv(chainer.Variable(x), lower=lower)
    numpy.testing.assert_allclose(y.array, numpy.linalg.inv(x) if d else x, rtol=1e-12)
    if d:
        assert y.creator.label == "TriangularInv"
        # Only the triangle is read: what lies in the other one does not matter.
        noisy = x + (numpy.triu(numpy.ones((d, d)), 1) if lower else numpy.tril(numpy.ones((d, d)), -1))
        numpy.testing.assert_allclose(mvn._triangular_inv(noisy, lower=lower).array, y.array, rtol=1e-12)
        check.gradient(lambda a: mvn._triangular_inv(a, lower=lower), (x,))
        chainer.gradient_check.check_double_backward(
            lambda a: mvn._triangular_inv(a, lower=lower),
            x,
            numpy.random.normal(size=(d, d)),
            numpy.random.normal(size=(d, d)),
            atol=1e-6,
            rtol=1e-5,
            eps=1e-6,
        )


def test_density_constants():
    from chainer.distributions import log_normal, multivariate_normal, normal

    assert normal.LOGPROBC == pytest.approx(-0.5 * numpy.log(2 * numpy.pi), rel=1e-15)
    assert normal.PROBC == pytest.approx(1 / numpy.sqrt(2 * numpy.pi), rel=1e-15)
    assert normal.ENTROPYC == pytest.approx(stats.norm.entropy(), rel=1e-15)
    assert multivariate_normal.LOGPROBC == normal.LOGPROBC == log_normal.LOGPROBC
    assert multivariate_normal.ENTROPYC == normal.ENTROPYC
    assert multivariate_normal.available_cpu is True  # SciPy is installed with the test requirements
