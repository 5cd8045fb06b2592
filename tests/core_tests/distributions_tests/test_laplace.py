import numpy
import pytest
from scipy import stats

import chainer
import chainer.distributions as D


def _params(shape, dtype=numpy.float64):
    return numpy.random.normal(size=shape).astype(dtype), numpy.random.uniform(0.5, 2.0, shape).astype(dtype)


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize("shape", [(), (3,)])
def test_against_scipy(check, dtype, shape):
    loc, scale = _params(shape, dtype)
    d = D.Laplace(loc, scale)
    ref = stats.laplace(loc.astype(numpy.float64), scale.astype(numpy.float64))
    x = numpy.random.normal(scale=2.0, size=(6,) + shape).astype(dtype)
    u = numpy.random.uniform(0.05, 0.95, (6,) + shape).astype(dtype)
    check.close(d.log_prob(x), ref.logpdf(x), dtype, "log_prob")
    check.close(d.cdf(x), ref.cdf(x), dtype, "cdf")
    check.close(d.icdf(u), ref.ppf(u), dtype, "icdf", rtol=1e-8 if dtype == numpy.float64 else 1e-3)
    check.close(d.entropy, ref.entropy(), dtype, "entropy")
    check.close(d.mean, ref.mean(), dtype, "mean")
    check.close(d.variance, ref.var(), dtype, "variance")
    check.close(d.stddev, ref.std(), dtype, "stddev")
    check.close(d.mode, loc, dtype, "mode")


def test_sampling(check):
    loc, scale = _params((3,))
    check.sample_moments(D.Laplace(loc, scale), loc, 2 * scale**2)


def test_gradients(check):
    loc, scale = _params((3,))
    x = loc + numpy.random.choice([-1.0, 1.0], (2, 3)) * numpy.random.uniform(0.2, 2.0, (2, 3))
    check.gradient(lambda loc, scale, x: D.Laplace(loc, scale).log_prob(x), (loc, scale, x))
    check.gradient(lambda loc, scale, x: D.Laplace(loc, scale).cdf(x), (loc, scale, x))
    check.gradient(lambda loc, scale: check.seeded(lambda: D.Laplace(loc, scale).sample_n(2)), (loc, scale))


def test_kl(check):
    check.kl_monte_carlo(D.Laplace(*_params((3,))), D.Laplace(*_params((3,))))
    a, b = _params((2,))
    c, e = a + numpy.array([0.7, -0.4]), b * 1.3
    check.gradient(lambda a, b, c, e: chainer.kl_divergence(D.Laplace(a, b), D.Laplace(c, e)), (a, b, c, e))


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_standard_cdf_and_icdf_functions(check, dtype):
    from chainer.distributions import laplace

    x = numpy.random.normal(size=(2, 3)).astype(dtype)
    u = numpy.random.uniform(0.02, 0.98, (2, 3)).astype(dtype)
    cdf = laplace._laplace_cdf(chainer.Variable(x))
    icdf = laplace._laplace_icdf(chainer.Variable(u))
    assert cdf.dtype == dtype and icdf.dtype == dtype
    assert (cdf.creator.label, icdf.creator.label) == ("LaplaceCDF", "LaplaceICDF")
    tol = {"rtol": 1e-12} if dtype == numpy.float64 else {"rtol": 1e-5, "atol": 1e-6}
    numpy.testing.assert_allclose(cdf.array, stats.laplace.cdf(x), **tol)
    numpy.testing.assert_allclose(icdf.array, stats.laplace.ppf(u), **tol)
    if dtype == numpy.float64:
        check.gradient(laplace._laplace_cdf, (x,))
        check.gradient(laplace._laplace_icdf, (u,))
        v = chainer.Variable(u)
        (g,) = chainer.grad([laplace._laplace_icdf(v)], [v], enable_double_backprop=True)
        # d icdf / du = 1 / pdf(icdf(u)); its own derivative is checked numerically.
        numpy.testing.assert_allclose(g.array, 1 / stats.laplace.pdf(stats.laplace.ppf(u)), rtol=1e-10)
        chainer.gradient_check.check_double_backward(
            laplace._laplace_icdf,
            u,
            numpy.random.normal(size=u.shape),
            numpy.random.normal(size=u.shape),
            atol=1e-5,
            rtol=1e-4,
            eps=1e-6,
        )
