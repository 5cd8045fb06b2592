"""The gamma distribution (shape and scale)."""

from __future__ import annotations

from typing import Any

from chainer import distribution, variable
from chainer import functions as F
from chainer.distributions import _util

_NAME = "chainer.distributions.Gamma"


class Gamma(_util.ScalarEventDistribution):
    """Gamma Distribution.

    .. math::
        p(x; k, \\theta) = \\frac{x^{k - 1} e^{-x / \\theta}}{\\Gamma(k) \\theta^k}, \\qquad x > 0.

    Samples are :math:`\\theta G` with :math:`G` a standard gamma draw of shape
    :math:`k`: differentiable in :math:`\\theta`, not in :math:`k`.

    Args:
        k: Shape :math:`k > 0`.
        theta: Scale :math:`\\theta > 0`.

    Example:
        >>> import chainer.distributions as D
        >>> float(D.Gamma(np.array(2., 'f'), np.array(3., 'f')).mean.array)
        6.0
    """

    _param_names = ("k", "theta")
    _support = "positive"

    def __init__(self, k: Any, theta: Any) -> None:
        self.k, self.theta = _util.params(_NAME, k=k, theta=theta)

    def log_prob(self, x: Any) -> variable.Variable:
        x = _util.value(x, self.k, f"{_NAME}.log_prob")

        def density(x: variable.Variable) -> variable.Variable:
            return (self.k - 1.0) * F.log(x) - x / self.theta - F.lgamma(self.k) - self.k * F.log(self.theta)

        return _util.masked(x.array > 0, density, x, 1.0, -float("inf"))

    @property
    def entropy(self) -> variable.Variable:
        k = self.k
        return k + F.log(self.theta) + F.lgamma(k) + (1.0 - k) * F.digamma(k)

    @property
    def mean(self) -> variable.Variable:
        return self.k * self.theta

    @property
    def mode(self) -> variable.Variable:
        """:math:`(k - 1) \\theta`, defined for :math:`k \\ge 1`."""
        return (self.k - 1.0) * self.theta

    @property
    def variance(self) -> variable.Variable:
        return self.k * F.square(self.theta)

    def sample_n(self, n: int) -> variable.Variable:
        n = _util.check_sample_n(n, f"{_NAME}.sample_n")
        g = _util.noise(self.xp, "standard_gamma", (n,) + self.batch_shape, self.k.dtype, shape=self.k.array)
        return self.theta * g


@distribution.register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p: Gamma, q: Gamma) -> variable.Variable:
    return (
        (p.k - q.k) * F.digamma(p.k)
        - F.lgamma(p.k)
        + F.lgamma(q.k)
        + q.k * (F.log(q.theta) - F.log(p.theta))
        + p.k * (p.theta / q.theta - 1.0)
    )


__all__ = ["Gamma"]
