"""The Cauchy distribution."""

from __future__ import annotations

import math
import warnings
from typing import Any

from chainer import functions as F
from chainer import variable
from chainer.distributions import _util

_NAME = "chainer.distributions.Cauchy"


class Cauchy(_util.LocScaleDistribution):
    """Cauchy Distribution.

    .. math::
        p(x; x_0, \\gamma) = \\frac{1}{\\pi \\gamma \\left(1 + \\left(\\frac{x - x_0}{\\gamma}\\right)^2\\right)}

    The mean and variance are undefined: :attr:`mean` and :attr:`variance` return NaN
    and warn (``RuntimeWarning``). Samples are reparameterised through the inverse CDF.

    Args:
        loc: Location :math:`x_0`.
        scale: Scale :math:`\\gamma > 0`.

    Example:
        >>> import chainer.distributions as D
        >>> d = D.Cauchy(np.array(0., 'f'), np.array(1., 'f'))
        >>> float(d.cdf(np.array(0., 'f')).array)
        0.5
    """

    _name = _NAME

    def log_prob(self, x: Any) -> variable.Variable:
        z = self._z(x, "log_prob")
        return -math.log(math.pi) - F.log(self.scale) - F.log1p(F.square(z))

    def cdf(self, x: Any) -> variable.Variable:
        return 0.5 + F.arctan(self._z(x, "cdf")) / math.pi

    def icdf(self, x: Any) -> variable.Variable:
        u = _util.value(x, self.loc, f"{_NAME}.icdf")
        return self.loc + self.scale * F.tan(math.pi * (u - 0.5))

    @property
    def entropy(self) -> variable.Variable:
        return F.log(4.0 * math.pi * self.scale)

    def _undefined(self, what: str) -> variable.Variable:
        warnings.warn(f"{_NAME}: the {what} of the Cauchy distribution is undefined (NaN)", RuntimeWarning)
        return _util.constant_like(self.loc, float("nan"))

    @property
    def mean(self) -> variable.Variable:
        return self._undefined("mean")

    @property
    def variance(self) -> variable.Variable:
        return self._undefined("variance")

    @property
    def mode(self) -> variable.Variable:
        return self.loc

    def sample_n(self, n: int) -> variable.Variable:
        n = _util.check_sample_n(n, f"{_NAME}.sample_n")
        eps = _util.noise(self.xp, "standard_cauchy", (n,) + self.batch_shape, self.loc.dtype)
        return self.loc + self.scale * eps


__all__ = ["Cauchy"]
