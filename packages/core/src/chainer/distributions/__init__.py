"""Collection of distribution implementations.

Every distribution derives from :class:`chainer.Distribution` and keeps its parameters
as variables, so log-densities, entropies, moments, Kullback-Leibler divergences
(:func:`chainer.kl_divergence`) and reparameterised samples are differentiable with
respect to them. Usually imported as ``import chainer.distributions as D``.
"""

from chainer.distributions import utils
from chainer.distributions.bernoulli import Bernoulli
from chainer.distributions.beta import Beta
from chainer.distributions.categorical import Categorical
from chainer.distributions.cauchy import Cauchy
from chainer.distributions.chisquare import Chisquare
from chainer.distributions.dirichlet import Dirichlet
from chainer.distributions.exponential import Exponential
from chainer.distributions.gamma import Gamma
from chainer.distributions.geometric import Geometric
from chainer.distributions.gumbel import Gumbel
from chainer.distributions.independent import Independent
from chainer.distributions.laplace import Laplace
from chainer.distributions.log_normal import LogNormal
from chainer.distributions.multivariate_normal import MultivariateNormal
from chainer.distributions.normal import Normal
from chainer.distributions.one_hot_categorical import OneHotCategorical
from chainer.distributions.pareto import Pareto
from chainer.distributions.poisson import Poisson
from chainer.distributions.uniform import Uniform

__all__ = [
    "Bernoulli",
    "Beta",
    "Categorical",
    "Cauchy",
    "Chisquare",
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
