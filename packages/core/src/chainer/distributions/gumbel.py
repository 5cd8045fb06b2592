"""The Gumbel (type-I extreme value) distribution."""

from __future__ import annotations

import math
from typing import Any

from chainer import distribution, variable
from chainer import functions as F
from chainer.distributions import _util

_NAME = "chainer.distributions.Gumbel"

#: The Euler-Mascheroni constant: the mean of a standard Gumbel variable.
EULER = _util.EULER_GAMMA


class Gumbel(_util.LocScaleDistribution):
    """Gumbel Distribution.

    .. math::
        p(x; \\mu, \\beta) = \\frac{1}{\\beta} \\exp\\left(-z - e^{-z}\\right),
        \\qquad z = \\frac{x - \\mu}{\\beta}.

    Samples are reparameterised (:math:`\\mu + \\beta G` with :math:`G` a standard
    Gumbel draw).

    Args:
        loc: Location :math:`\\mu`.
        scale: Scale :math:`\\beta > 0`.

    Example:
        >>> import chainer.distributions as D
        >>> float(D.Gumbel(np.array(0., 'f'), np.array(1., 'f')).mode.array)
        0.0
    """

    _name = _NAME

    def log_prob(self, x: Any) -> variable.Variable:
        z = self._z(x, "log_prob")
        return -F.log(self.scale) - z - F.exp(-z)

    def log_cdf(self, x: Any) -> variable.Variable:
        return -F.exp(-self._z(x, "log_cdf"))

    def cdf(self, x: Any) -> variable.Variable:
        return F.exp(self.log_cdf(x))

    def icdf(self, x: Any) -> variable.Variable:
        u = _util.value(x, self.loc, f"{_NAME}.icdf")
        return self.loc - self.scale * F.log(-F.log(u))

    @property
    def entropy(self) -> variable.Variable:
        return F.log(self.scale) + (EULER + 1.0)

    @property
    def mean(self) -> variable.Variable:
        return self.loc + EULER * self.scale

    @property
    def mode(self) -> variable.Variable:
        return self.loc

    @property
    def variance(self) -> variable.Variable:
        return (math.pi**2 / 6.0) * F.square(self.scale)

    def sample_n(self, n: int) -> variable.Variable:
        n = _util.check_sample_n(n, f"{_NAME}.sample_n")
        eps = _util.noise(self.xp, "gumbel", (n,) + self.batch_shape, self.loc.dtype)
        return self.loc + self.scale * eps


@distribution.register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p: Gumbel, q: Gumbel) -> variable.Variable:
    ratio = p.scale / q.scale
    return (
        F.log(q.scale)
        - F.log(p.scale)
        + (p.loc - q.loc) / q.scale
        + EULER * (ratio - 1.0)
        + F.exp((q.loc - p.loc) / q.scale + F.lgamma(ratio + 1.0))
        - 1.0
    )


__all__ = ["EULER", "Gumbel"]
