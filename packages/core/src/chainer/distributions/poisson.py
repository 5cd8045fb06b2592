"""The Poisson distribution."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import distribution, variable
from chainer import functions as F
from chainer.distributions import _util
from chainer.utils import force_array

_NAME = "chainer.distributions.Poisson"


class Poisson(_util.ScalarEventDistribution):
    """Poisson Distribution.

    .. math::
        P(x; \\lambda) = \\frac{\\lambda^x e^{-\\lambda}}{x!}, \\qquad x = 0, 1, 2, \\dots

    Points that are not non-negative integers have log-probability :math:`-\\infty`.
    Samples are ``int32``. The entropy has no closed form and is not provided.

    Args:
        lam: Rate :math:`\\lambda > 0`.

    Example:
        >>> import chainer.distributions as D
        >>> float(D.Poisson(np.array(3., 'f')).variance.array)
        3.0
    """

    _param_names = ("lam",)
    _support = "non negative integer"

    def __init__(self, lam: Any) -> None:
        (self.lam,) = _util.params(_NAME, lam=lam)

    def log_prob(self, x: Any) -> variable.Variable:
        x = _util.value(x, self.lam, f"{_NAME}.log_prob")
        xa = x.array
        valid = (xa >= 0) & (xa == self.xp.floor(xa))

        def mass(x: variable.Variable) -> variable.Variable:
            return x * F.log(self.lam) - self.lam - F.lgamma(x + 1.0)

        return _util.masked(valid, mass, x, 0.0, -float("inf"))

    @property
    def entropy(self) -> variable.Variable:
        raise NotImplementedError(f"{_NAME}: the entropy of the Poisson distribution has no closed form")

    @property
    def mean(self) -> variable.Variable:
        return self.lam

    @property
    def mode(self) -> variable.Variable:
        """:math:`\\lfloor \\lambda \\rfloor` (not differentiable)."""
        return variable.Variable(force_array(self.xp.floor(self.lam.array)), requires_grad=False)

    @property
    def variance(self) -> variable.Variable:
        return self.lam

    def sample_n(self, n: int) -> variable.Variable:
        n = _util.check_sample_n(n, f"{_NAME}.sample_n")
        x = self.xp.random.poisson(self.lam.array, size=(n,) + self.batch_shape)
        return variable.Variable(x.astype(numpy.int32), requires_grad=False)


@distribution.register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p: Poisson, q: Poisson) -> variable.Variable:
    return p.lam * (F.log(p.lam) - F.log(q.lam)) - p.lam + q.lam


__all__ = ["Poisson"]
