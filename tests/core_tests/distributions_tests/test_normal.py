import numpy
import pytest
from scipy import stats

import chainer
import chainer.distributions as D

DTYPES = [numpy.float16, numpy.float32, numpy.float64]
SHAPES = [(), (3,), (2, 3)]


def _params(shape, dtype):
    loc = numpy.random.normal(size=shape).astype(dtype)
    scale = numpy.random.uniform(0.5, 2.0, shape).astype(dtype)
    return loc, scale


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("by_log_scale", [False, True])
def test_against_scipy(check, dtype, shape, by_log_scale):
    loc, scale = _params(shape, dtype)
    d = D.Normal(loc, log_scale=numpy.log(scale)) if by_log_scale else D.Normal(loc, scale)
    ref = stats.norm(loc.astype(numpy.float64), scale.astype(numpy.float64))
    x = numpy.random.normal(size=(4,) + shape).astype(dtype)
    u = numpy.random.uniform(0.05, 0.95, (4,) + shape).astype(dtype)
    assert d.batch_shape == shape and d.event_shape == ()
    check.close(d.log_prob(x), ref.logpdf(x), dtype, "log_prob")
    check.close(d.prob(x), ref.pdf(x), dtype, "prob")
    check.close(d.cdf(x), ref.cdf(x), dtype, "cdf")
    check.close(d.log_cdf(x), ref.logcdf(x), dtype, "log_cdf")
    check.close(d.survival_function(x), ref.sf(x), dtype, "survival_function")
    check.close(d.log_survival_function(x), ref.logsf(x), dtype, "log_survival_function")
    check.close(d.icdf(u), ref.ppf(u), dtype, "icdf", rtol=1e-8 if dtype == numpy.float64 else 1e-3)
    check.close(d.entropy, ref.entropy(), dtype, "entropy")
    check.close(d.mean, ref.mean(), dtype, "mean")
    check.close(d.mode, loc, dtype, "mode")
    check.close(d.variance, ref.var(), dtype, "variance")
    check.close(d.stddev, ref.std(), dtype, "stddev")
    check.close(d.perplexity(x), 1.0 / ref.pdf(x), dtype, "perplexity")


def test_params_and_support():
    loc, scale = _params((2,), numpy.float32)
    d = D.Normal(loc, scale)
    assert set(d.params) == {"loc", "scale"}
    assert d.support == "real"
    assert d.xp is numpy
    d2 = D.Normal(loc, log_scale=numpy.log(scale))
    numpy.testing.assert_allclose(d2.params["scale"].array, scale, rtol=1e-6)


def test_parameters_broadcast_and_scalars():
    d = D.Normal(numpy.zeros(3, numpy.float64), 2.0)
    assert d.batch_shape == (3,)
    assert d.scale.dtype == numpy.float64
    numpy.testing.assert_allclose(d.variance.array, [4.0, 4.0, 4.0])
    d = D.Normal(0.0, 1.0)
    assert d.loc.dtype == chainer.get_dtype()


def test_sampling(check):
    loc, scale = _params((3,), numpy.float64)
    d = D.Normal(loc, scale)
    samples = check.sample_moments(d, loc, scale**2)
    check.empirical_cdf(samples, loc + 0.5 * scale, stats.norm.cdf(0.5) * numpy.ones(3))
    assert d.sample().shape == (3,)
    assert d.sample((2, 5)).shape == (2, 5, 3)
    assert d.sample_n(4).dtype == numpy.float64


def test_sample_is_reparameterised():
    loc = chainer.Variable(numpy.array([0.5, -1.0]))
    log_scale = chainer.Variable(numpy.array([0.1, 0.3]))
    d = D.Normal(loc, log_scale=log_scale)
    x = d.sample_n(7)
    eps = (x.array - loc.array) / numpy.exp(log_scale.array)
    chainer.functions.sum(x).backward()
    numpy.testing.assert_allclose(loc.grad, [7.0, 7.0])
    # d x / d log_scale = scale * eps
    numpy.testing.assert_allclose(log_scale.grad, (numpy.exp(log_scale.array) * eps).sum(axis=0), rtol=1e-10)


def test_log_prob_gradient(check):
    x = numpy.random.normal(size=(2, 3))
    loc, scale = _params((3,), numpy.float64)
    check.gradient(lambda loc, scale: D.Normal(loc, scale).log_prob(x), (loc, scale))
    check.gradient(lambda loc, ls: D.Normal(loc, log_scale=ls).log_prob(x), (loc, numpy.log(scale)))
    check.gradient(lambda loc, scale, x: D.Normal(loc, scale).cdf(x), (loc, scale, x))
    check.gradient(lambda scale: D.Normal(loc, scale).entropy, (scale,))


def test_kl(check):
    p = D.Normal(*_params((3,), numpy.float64))
    q = D.Normal(*_params((3,), numpy.float64))
    check.kl_monte_carlo(p, q)
    l1, s1 = _params((3,), numpy.float64)
    l2, s2 = _params((3,), numpy.float64)
    check.gradient(lambda l1, s1, l2, s2: chainer.kl_divergence(D.Normal(l1, s1), D.Normal(l2, s2)), (l1, s1, l2, s2))
    expected = numpy.log(s2 / s1) + (s1**2 + (l1 - l2) ** 2) / (2 * s2**2) - 0.5
    check.close(chainer.kl_divergence(D.Normal(l1, s1), D.Normal(l2, s2)), expected, numpy.float64, "kl")


def test_cross_entropy(check):
    l1, s1 = _params((3,), numpy.float64)
    l2, s2 = _params((3,), numpy.float64)
    p, q = D.Normal(l1, s1), D.Normal(l2, s2)
    # H(p, q) = -E_p[log q] = log(s2 sqrt(2 pi)) + (s1^2 + (l1 - l2)^2) / (2 s2^2)
    expected = numpy.log(s2 * numpy.sqrt(2 * numpy.pi)) + (s1**2 + (l1 - l2) ** 2) / (2 * s2**2)
    check.close(chainer.cross_entropy(p, q), expected, numpy.float64, "cross_entropy")


def test_invalid_arguments():
    with pytest.raises(ValueError, match="exactly one of scale and log_scale"):
        D.Normal(numpy.zeros(2, "f"))
    with pytest.raises(ValueError, match="exactly one of scale and log_scale"):
        D.Normal(numpy.zeros(2, "f"), numpy.ones(2, "f"), log_scale=numpy.zeros(2, "f"))
    with pytest.raises(TypeError, match="unexpected keyword argument.*'lg_scale'"):
        D.Normal(numpy.zeros(2, "f"), lg_scale=numpy.zeros(2, "f"))
    with pytest.raises(TypeError, match="same dtype"):
        D.Normal(numpy.zeros(2, "f"), numpy.ones(2, "d"))
    with pytest.raises(TypeError, match="floating dtype"):
        D.Normal(numpy.zeros(2, "i"), numpy.ones(2, "i"))
    with pytest.raises(ValueError, match="do not broadcast"):
        D.Normal(numpy.zeros(2, "f"), numpy.ones(3, "f"))
    with pytest.raises(TypeError, match="sample_shape"):
        D.Normal(numpy.zeros(2, "f"), numpy.ones(2, "f")).sample(1.5)
