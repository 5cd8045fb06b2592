"""The normal (Gaussian) distribution."""

from __future__ import annotations

import functools
from typing import Any

from chainer import distribution, variable
from chainer import functions as F
from chainer.distributions import _util
from chainer.utils import argument

_NAME = "chainer.distributions.Normal"

#: The entropy of a standard normal, :math:`\\frac{1}{2} \\log(2 \\pi e)`.
ENTROPYC = _util.ENTROPYC
#: :math:`-\\frac{1}{2} \\log(2 \\pi)`, the constant of the log-density.
LOGPROBC = _util.LOGPROBC
#: :math:`1 / \\sqrt{2 \\pi}`, the constant of the density.
PROBC = _util.PROBC


class Normal(_util.LocScaleDistribution):
    """Normal Distribution.

    .. math::
        p(x; \\mu, \\sigma) = \\frac{1}{\\sqrt{2\\pi\\sigma^2}}
            \\exp\\left(-\\frac{(x - \\mu)^2}{2\\sigma^2}\\right)

    ``Normal(loc, scale=None, *, log_scale=None)``: give exactly one of ``scale`` and
    ``log_scale`` (the latter is convenient when a network outputs it unconstrained).
    Parameters broadcast to one batch shape. Samples are reparameterised
    (:math:`\\mu + \\sigma \\epsilon`), so they are differentiable in both parameters.

    Args:
        loc: The mean :math:`\\mu` (array or variable of a floating dtype).
        scale: The standard deviation :math:`\\sigma > 0`.
        log_scale: :math:`\\log \\sigma`, instead of ``scale``.

    Example:
        >>> import chainer.distributions as D
        >>> d = D.Normal(np.zeros(2, 'f'), np.ones(2, 'f'))
        >>> d.log_prob(np.zeros(2, 'f')).array
        array([-0.9189385, -0.9189385], dtype=float32)
    """

    _name = _NAME

    def __init__(self, loc: Any, scale: Any = None, **kwargs: Any) -> None:
        (log_scale,) = argument.parse_kwargs(kwargs, ("log_scale", None))
        if (scale is None) == (log_scale is None):
            raise ValueError(f"{_NAME}: give exactly one of scale and log_scale")
        if scale is not None:
            self.loc, self.scale = _util.params(_NAME, loc=loc, scale=scale)
            self._given_log_scale = False
        else:
            self.loc, self.log_scale = _util.params(_NAME, loc=loc, log_scale=log_scale)
            self._given_log_scale = True

    @functools.cached_property
    def scale(self) -> variable.Variable:  # type: ignore[override]
        return F.exp(self.log_scale)

    @functools.cached_property
    def log_scale(self) -> variable.Variable:
        return F.log(self.scale)

    def log_prob(self, x: Any) -> variable.Variable:
        z = self._z(x, "log_prob")
        return -0.5 * F.square(z) - self.log_scale + LOGPROBC

    def cdf(self, x: Any) -> variable.Variable:
        return F.ndtr(self._z(x, "cdf"))

    def log_cdf(self, x: Any) -> variable.Variable:
        return F.log_ndtr(self._z(x, "log_cdf"))

    def survival_function(self, x: Any) -> variable.Variable:
        return F.ndtr(-self._z(x, "survival_function"))

    def log_survival_function(self, x: Any) -> variable.Variable:
        return F.log_ndtr(-self._z(x, "log_survival_function"))

    def icdf(self, x: Any) -> variable.Variable:
        return self.loc + self.scale * F.ndtri(_util.value(x, self.loc, f"{_NAME}.icdf"))

    @property
    def entropy(self) -> variable.Variable:
        return self.log_scale + ENTROPYC

    @property
    def mean(self) -> variable.Variable:
        return self.loc

    @property
    def mode(self) -> variable.Variable:
        return self.loc

    @property
    def variance(self) -> variable.Variable:
        return F.square(self.scale)

    @property
    def stddev(self) -> variable.Variable:
        return self.scale

    def sample_n(self, n: int) -> variable.Variable:
        n = _util.check_sample_n(n, f"{_NAME}.sample_n")
        eps = _util.noise(self.xp, "standard_normal", (n,) + self.batch_shape, self.loc.dtype)
        return self.loc + self.scale * eps


@distribution.register_kl(Normal, Normal)
def _kl_normal_normal(p: Normal, q: Normal) -> variable.Variable:
    return q.log_scale - p.log_scale + 0.5 * (F.square(p.scale) + F.square(p.loc - q.loc)) / F.square(q.scale) - 0.5


__all__ = ["ENTROPYC", "LOGPROBC", "PROBC", "Normal"]
