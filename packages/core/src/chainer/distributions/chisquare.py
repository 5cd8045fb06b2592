"""The chi-square distribution."""

from __future__ import annotations

import math
from typing import Any

from chainer import functions as F
from chainer import variable
from chainer.distributions import _util

_NAME = "chainer.distributions.Chisquare"


class Chisquare(_util.ScalarEventDistribution):
    """Chi-Square Distribution.

    .. math::
        p(x; k) = \\frac{x^{k/2 - 1} e^{-x/2}}{2^{k/2} \\Gamma(k/2)}, \\qquad x > 0.

    Samples come from the array module's chi-square generator (not differentiable).

    Args:
        k: Degrees of freedom :math:`k > 0`.

    Example:
        >>> import chainer.distributions as D
        >>> float(D.Chisquare(np.array(3., 'f')).variance.array)
        6.0
    """

    _param_names = ("k",)
    _support = "positive"

    def __init__(self, k: Any) -> None:
        (self.k,) = _util.params(_NAME, k=k)

    def log_prob(self, x: Any) -> variable.Variable:
        x = _util.value(x, self.k, f"{_NAME}.log_prob")
        half_k = 0.5 * self.k

        def density(x: variable.Variable) -> variable.Variable:
            return (half_k - 1.0) * F.log(x) - 0.5 * x - half_k * math.log(2.0) - F.lgamma(half_k)

        return _util.masked(x.array > 0, density, x, 1.0, -float("inf"))

    @property
    def entropy(self) -> variable.Variable:
        half_k = 0.5 * self.k
        return half_k + math.log(2.0) + F.lgamma(half_k) + (1.0 - half_k) * F.digamma(half_k)

    @property
    def mean(self) -> variable.Variable:
        return self.k

    @property
    def mode(self) -> variable.Variable:
        """:math:`\\max(k - 2, 0)`."""
        return F.relu(self.k - 2.0)

    @property
    def variance(self) -> variable.Variable:
        return 2.0 * self.k

    def sample_n(self, n: int) -> variable.Variable:
        n = _util.check_sample_n(n, f"{_NAME}.sample_n")
        x = _util.noise(self.xp, "chisquare", (n,) + self.batch_shape, self.k.dtype, df=self.k.array)
        return variable.Variable(x, requires_grad=False)


__all__ = ["Chisquare"]
