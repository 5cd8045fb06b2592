"""The Distribution interface and the Kullback-Leibler registry."""

import numpy
import pytest

import chainer
import chainer.distributions as D
import chainer.functions as F


class Coin(chainer.Distribution):
    """A minimal distribution defining only prob: the interface derives the rest."""

    def __init__(self, p):
        self.p = chainer.as_variable(p)

    @property
    def batch_shape(self):
        return self.p.shape

    @property
    def event_shape(self):
        return ()

    @property
    def params(self):
        return {"p": self.p}

    def prob(self, x):
        return F.where(x == 1, self.p, 1 - self.p)

    def cdf(self, x):
        return F.where(x < 1, 1 - self.p, self.p * 0 + 1)

    @property
    def variance(self):
        return self.p * (1 - self.p)


def test_defaults_derived_from_other_methods():
    c = Coin(numpy.array([0.2, 0.6]))
    x = numpy.array([1, 0])
    numpy.testing.assert_allclose(c.log_prob(x).array, numpy.log([0.2, 0.4]))
    numpy.testing.assert_allclose(c.log_cdf(x).array, numpy.log([1.0, 0.4]))
    numpy.testing.assert_allclose(c.survival_function(x).array, [0.0, 0.6])
    numpy.testing.assert_allclose(c.log_survival_function(numpy.array([0, 0])).array, numpy.log([0.2, 0.6]))
    numpy.testing.assert_allclose(c.stddev.array, numpy.sqrt([0.16, 0.24]))
    numpy.testing.assert_allclose(c.perplexity(x).array, [5.0, 2.5])
    assert c.xp is numpy
    assert repr(c) == "Coin(p=[0.2, 0.6])"


@pytest.mark.parametrize("name", ["entropy", "mean", "mode", "covariance", "support"])
def test_missing_properties_name_the_class(name):
    with pytest.raises(NotImplementedError, match=f"Coin does not implement {name}"):
        getattr(Coin(numpy.array([0.5])), name)


def test_missing_methods_name_the_class():
    c = Coin(numpy.array([0.5]))
    with pytest.raises(NotImplementedError, match="Coin does not implement icdf"):
        c.icdf(numpy.array([0.5]))
    with pytest.raises(NotImplementedError, match="Coin does not implement sample_n"):
        c.sample(3)
    bare = chainer.Distribution()
    for method in ("log_prob", "prob", "cdf", "log_cdf"):
        with pytest.raises(NotImplementedError, match="does not implement"):
            getattr(bare, method)(numpy.zeros(1))
    with pytest.raises(NotImplementedError, match="does not implement variance"):
        _ = bare.variance
    with pytest.raises(NotImplementedError, match="does not implement stddev"):
        _ = bare.stddev
    with pytest.raises(NotImplementedError, match="does not implement batch_shape"):
        _ = bare.batch_shape


def test_sample_shapes():
    d = D.Normal(numpy.zeros((2, 3)), numpy.ones((2, 3)))
    assert d.sample().shape == (2, 3)
    assert d.sample(4).shape == (4, 2, 3)
    assert d.sample((4, 5)).shape == (4, 5, 2, 3)
    assert d.sample((0,)).shape == (0, 2, 3)
    for bad in (1.5, (2, -1), [2], True):
        with pytest.raises(TypeError, match="sample_shape must be"):
            d.sample(bad)
    with pytest.raises(TypeError, match="n must be a non-negative int"):
        d.sample_n(-1)


def test_kl_registry_uses_the_most_specific_registration():
    class MyNormal(D.Normal):
        pass

    p = MyNormal(numpy.array(0.0), numpy.array(1.0))
    q = D.Normal(numpy.array(1.0), numpy.array(1.0))
    numpy.testing.assert_allclose(chainer.kl_divergence(p, q).array, 0.5)

    @chainer.register_kl(MyNormal, D.Normal)
    def _custom(a, b):
        return chainer.Variable(numpy.array(42.0))

    try:
        assert float(chainer.kl_divergence(p, q).array) == 42.0
        assert float(chainer.kl_divergence(q, q).array) == 0.0
    finally:
        del chainer.distribution._KL_REGISTRY[MyNormal, D.Normal]


def test_kl_errors():
    n = D.Normal(numpy.array(0.0), numpy.array(1.0))
    c = D.Cauchy(numpy.array(0.0), numpy.array(1.0))
    with pytest.raises(NotImplementedError, match=r"no KL divergence is registered for \(Normal, Cauchy\)"):
        chainer.kl_divergence(n, c)
    with pytest.raises(TypeError, match="dist2 must be a chainer.Distribution"):
        chainer.kl_divergence(n, 1.0)
    with pytest.raises(TypeError, match="Dist1 must be a subclass of chainer.Distribution"):
        chainer.register_kl(int, D.Normal)
    with pytest.raises(TypeError, match="expected a function"):
        chainer.register_kl(D.Normal, D.Normal)(3)


REGISTERED_PAIRS = [
    "Bernoulli",
    "Beta",
    "Categorical",
    "Dirichlet",
    "Exponential",
    "Gamma",
    "Geometric",
    "Gumbel",
    "Independent",
    "Laplace",
    "LogNormal",
    "MultivariateNormal",
    "Normal",
    "OneHotCategorical",
    "Pareto",
    "Poisson",
    "Uniform",
]


@pytest.mark.parametrize("name", REGISTERED_PAIRS)
def test_kl_pairs_of_7_8_1_are_registered(name):
    cls = getattr(D, name)
    assert (cls, cls) in chainer.distribution._KL_REGISTRY


def test_all_distributions_are_exported():
    assert sorted(D.__all__) == sorted(REGISTERED_PAIRS + ["Cauchy", "Chisquare"])
    for name in D.__all__:
        assert issubclass(getattr(D, name), chainer.Distribution)
