"""The Laplace (double exponential) distribution."""

from __future__ import annotations

import math
from typing import Any

from chainer import distribution, variable
from chainer import functions as F
from chainer.distributions import _util

_NAME = "chainer.distributions.Laplace"


class Laplace(_util.LocScaleDistribution):
    """Laplace Distribution.

    .. math::
        p(x; \\mu, b) = \\frac{1}{2b} \\exp\\left(-\\frac{|x - \\mu|}{b}\\right)

    Samples are reparameterised (:math:`\\mu + b L` with :math:`L` a standard Laplace
    draw).

    Args:
        loc: Location :math:`\\mu`.
        scale: Scale :math:`b > 0`.

    Example:
        >>> import chainer.distributions as D
        >>> float(D.Laplace(np.array(0., 'f'), np.array(1., 'f')).variance.array)
        2.0
    """

    _name = _NAME

    def log_prob(self, x: Any) -> variable.Variable:
        z = self._z(x, "log_prob")
        return -math.log(2.0) - F.log(self.scale) - F.absolute(z)

    def cdf(self, x: Any) -> variable.Variable:
        z = self._z(x, "cdf")
        # Each branch only sees the half-line where its exponential does not overflow.
        below = z.array < 0
        half_tail = 0.5 * F.exp(-F.absolute(z))
        return _util.where(below, half_tail, 1.0 - half_tail)

    def icdf(self, x: Any) -> variable.Variable:
        u = _util.value(x, self.loc, f"{_NAME}.icdf")
        below = u.array < 0.5
        z = _util.where(below, F.log(2.0 * u), -F.log(2.0 - 2.0 * u))
        return self.loc + self.scale * z

    @property
    def entropy(self) -> variable.Variable:
        return F.log(self.scale) + (1.0 + math.log(2.0))

    @property
    def mean(self) -> variable.Variable:
        return self.loc

    @property
    def mode(self) -> variable.Variable:
        return self.loc

    @property
    def variance(self) -> variable.Variable:
        return 2.0 * F.square(self.scale)

    @property
    def stddev(self) -> variable.Variable:
        return math.sqrt(2.0) * self.scale

    def sample_n(self, n: int) -> variable.Variable:
        n = _util.check_sample_n(n, f"{_NAME}.sample_n")
        eps = _util.noise(self.xp, "laplace", (n,) + self.batch_shape, self.loc.dtype)
        return self.loc + self.scale * eps


@distribution.register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p: Laplace, q: Laplace) -> variable.Variable:
    distance = F.absolute(p.loc - q.loc)
    return F.log(q.scale) - F.log(p.scale) + distance / q.scale + p.scale / q.scale * F.exp(-distance / p.scale) - 1.0


__all__ = ["Laplace"]
