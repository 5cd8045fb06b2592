"""The exponential distribution."""

from __future__ import annotations

from typing import Any

from chainer import distribution, variable
from chainer import functions as F
from chainer.distributions import _util

_NAME = "chainer.distributions.Exponential"


class Exponential(_util.ScalarEventDistribution):
    """Exponential Distribution.

    .. math::
        p(x; \\lambda) = \\lambda e^{-\\lambda x}, \\qquad x \\ge 0.

    Samples are reparameterised (:math:`E / \\lambda` with :math:`E` standard
    exponential), so they are differentiable in :math:`\\lambda`.

    Args:
        lam: Rate :math:`\\lambda > 0`.

    Example:
        >>> import chainer.distributions as D
        >>> float(D.Exponential(np.array(2., 'f')).mean.array)
        0.5
    """

    _param_names = ("lam",)
    _support = "positive"

    def __init__(self, lam: Any) -> None:
        (self.lam,) = _util.params(_NAME, lam=lam)

    def _x(self, x: Any, where: str) -> variable.Variable:
        return _util.value(x, self.lam, f"{_NAME}.{where}")

    def log_prob(self, x: Any) -> variable.Variable:
        x = self._x(x, "log_prob")
        return _util.masked(x.array >= 0, lambda x: F.log(self.lam) - self.lam * x, x, 0.0, -float("inf"))

    def cdf(self, x: Any) -> variable.Variable:
        x = self._x(x, "cdf")
        return -F.expm1(-self.lam * F.relu(x))

    def log_survival_function(self, x: Any) -> variable.Variable:
        x = self._x(x, "log_survival_function")
        return -self.lam * F.relu(x)

    def survival_function(self, x: Any) -> variable.Variable:
        return F.exp(self.log_survival_function(x))

    def icdf(self, x: Any) -> variable.Variable:
        u = self._x(x, "icdf")
        return -F.log1p(-u) / self.lam

    @property
    def entropy(self) -> variable.Variable:
        return 1.0 - F.log(self.lam)

    @property
    def mean(self) -> variable.Variable:
        return 1.0 / self.lam

    @property
    def mode(self) -> variable.Variable:
        return _util.constant_like(self.lam, 0.0)

    @property
    def variance(self) -> variable.Variable:
        return 1.0 / F.square(self.lam)

    @property
    def stddev(self) -> variable.Variable:
        return 1.0 / self.lam

    def sample_n(self, n: int) -> variable.Variable:
        n = _util.check_sample_n(n, f"{_NAME}.sample_n")
        eps = _util.noise(self.xp, "standard_exponential", (n,) + self.batch_shape, self.lam.dtype)
        return eps / self.lam


@distribution.register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p: Exponential, q: Exponential) -> variable.Variable:
    return F.log(p.lam) - F.log(q.lam) + q.lam / p.lam - 1.0


__all__ = ["Exponential"]
