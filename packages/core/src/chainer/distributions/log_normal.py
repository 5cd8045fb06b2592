"""The log-normal distribution."""

from __future__ import annotations

from typing import Any

from chainer import distribution, variable
from chainer import functions as F
from chainer.distributions import _util

_NAME = "chainer.distributions.LogNormal"

#: :math:`-\\frac{1}{2} \\log(2 \\pi)`, the constant of the log-density.
LOGPROBC = _util.LOGPROBC


class LogNormal(_util.ScalarEventDistribution):
    """Logatithm Normal Distribution.

    The distribution of :math:`e^Y` for a normal :math:`Y \\sim N(\\mu, \\sigma^2)`:

    .. math::
        p(x; \\mu, \\sigma) = \\frac{1}{x \\sigma \\sqrt{2\\pi}}
            \\exp\\left(-\\frac{(\\log x - \\mu)^2}{2\\sigma^2}\\right), \\qquad x > 0.

    Samples are reparameterised (:math:`\\exp(\\mu + \\sigma \\epsilon)`).

    Args:
        mu: Mean :math:`\\mu` of the logarithm.
        sigma: Standard deviation :math:`\\sigma > 0` of the logarithm.

    Example:
        >>> import chainer.distributions as D
        >>> float(D.LogNormal(np.array(0., 'f'), np.array(1., 'f')).median.array)
        1.0
    """

    _param_names = ("mu", "sigma")
    _support = "positive"

    def __init__(self, mu: Any, sigma: Any) -> None:
        self.mu, self.sigma = _util.params(_NAME, mu=mu, sigma=sigma)

    def _x(self, x: Any, where: str) -> variable.Variable:
        return _util.value(x, self.mu, f"{_NAME}.{where}")

    def log_prob(self, x: Any) -> variable.Variable:
        x = self._x(x, "log_prob")

        def density(x: variable.Variable) -> variable.Variable:
            log_x = F.log(x)
            z = (log_x - self.mu) / self.sigma
            return -log_x - F.log(self.sigma) + LOGPROBC - 0.5 * F.square(z)

        return _util.masked(x.array > 0, density, x, 1.0, -float("inf"))

    def cdf(self, x: Any) -> variable.Variable:
        x = self._x(x, "cdf")
        return _util.masked(x.array > 0, lambda x: F.ndtr((F.log(x) - self.mu) / self.sigma), x, 1.0, 0.0)

    def icdf(self, x: Any) -> variable.Variable:
        u = self._x(x, "icdf")
        return F.exp(self.mu + self.sigma * F.ndtri(u))

    @property
    def entropy(self) -> variable.Variable:
        return self.mu + F.log(self.sigma) + _util.ENTROPYC

    @property
    def mean(self) -> variable.Variable:
        return F.exp(self.mu + 0.5 * F.square(self.sigma))

    @property
    def median(self) -> variable.Variable:
        """:math:`e^\\mu`."""
        return F.exp(self.mu)

    @property
    def mode(self) -> variable.Variable:
        return F.exp(self.mu - F.square(self.sigma))

    @property
    def variance(self) -> variable.Variable:
        sigma2 = F.square(self.sigma)
        return F.expm1(sigma2) * F.exp(2.0 * self.mu + sigma2)

    def sample_n(self, n: int) -> variable.Variable:
        n = _util.check_sample_n(n, f"{_NAME}.sample_n")
        eps = _util.noise(self.xp, "standard_normal", (n,) + self.batch_shape, self.mu.dtype)
        return F.exp(self.mu + self.sigma * eps)


@distribution.register_kl(LogNormal, LogNormal)
def _kl_lognormal_lognormal(p: LogNormal, q: LogNormal) -> variable.Variable:
    # The log maps one onto the other: the divergence is that of the underlying normals.
    return F.log(q.sigma) - F.log(p.sigma) + 0.5 * (F.square(p.sigma) + F.square(p.mu - q.mu)) / F.square(q.sigma) - 0.5


__all__ = ["LOGPROBC", "LogNormal"]
