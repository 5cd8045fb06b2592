"""The continuous uniform distribution."""

from __future__ import annotations

import functools
import math
from typing import Any

from chainer import distribution, variable
from chainer import functions as F
from chainer.distributions import _util
from chainer.utils import argument

_NAME = "chainer.distributions.Uniform"


class Uniform(_util.ScalarEventDistribution):
    """Uniform Distribution.

    .. math::
        p(x; l, h) = \\frac{1}{h - l}, \\qquad l \\le x \\le h.

    ``Uniform(*, low, high)`` or ``Uniform(*, loc, scale)`` (then :math:`l = loc` and
    :math:`h = loc + scale`). Samples are reparameterised (:math:`l + (h - l) U`).

    Args:
        low: Lower bound :math:`l`.
        high: Upper bound :math:`h > l`.
        loc: Lower bound, with ``scale``.
        scale: Width :math:`h - l > 0`, with ``loc``.

    Example:
        >>> import chainer.distributions as D
        >>> d = D.Uniform(low=np.array(0., 'f'), high=np.array(4., 'f'))
        >>> float(d.mean.array), float(d.variance.array)
        (2.0, 1.3333333730697632)
    """

    _param_names = ("low", "high")
    _support = "[low, high]"

    def __init__(self, **kwargs: Any) -> None:
        low, high, loc, scale = argument.parse_kwargs(
            kwargs, ("low", None), ("high", None), ("loc", None), ("scale", None)
        )
        by_bounds = low is not None or high is not None
        by_loc = loc is not None or scale is not None
        if (
            by_bounds == by_loc
            or (by_bounds and (low is None or high is None))
            or (by_loc and (loc is None or scale is None))
        ):
            raise ValueError(f"{_NAME}: give either low and high, or loc and scale")
        if by_bounds:
            self.low, self.high = _util.params(_NAME, low=low, high=high)
        else:
            self.loc, self.scale = _util.params(_NAME, loc=loc, scale=scale)

    @functools.cached_property
    def low(self) -> variable.Variable:
        return self.loc

    @functools.cached_property
    def high(self) -> variable.Variable:
        return self.loc + self.scale

    @functools.cached_property
    def loc(self) -> variable.Variable:
        return self.low

    @functools.cached_property
    def scale(self) -> variable.Variable:
        return self.high - self.low

    def _x(self, x: Any, where: str) -> variable.Variable:
        return _util.value(x, self.low, f"{_NAME}.{where}")

    def log_prob(self, x: Any) -> variable.Variable:
        x = self._x(x, "log_prob")
        inside = (x.array >= self.low.array) & (x.array <= self.high.array)
        log_density = F.broadcast_to(-F.log(self.scale), inside.shape)
        return _util.where(inside, log_density, -math.inf)

    def cdf(self, x: Any) -> variable.Variable:
        x = self._x(x, "cdf")
        return F.clip((x - self.low) / self.scale, 0.0, 1.0)

    def icdf(self, x: Any) -> variable.Variable:
        return self.low + self.scale * self._x(x, "icdf")

    @property
    def entropy(self) -> variable.Variable:
        return F.log(self.scale)

    @property
    def mean(self) -> variable.Variable:
        return self.low + 0.5 * self.scale

    @property
    def variance(self) -> variable.Variable:
        return F.square(self.scale) / 12.0

    @property
    def stddev(self) -> variable.Variable:
        return self.scale / math.sqrt(12.0)

    def sample_n(self, n: int) -> variable.Variable:
        n = _util.check_sample_n(n, f"{_NAME}.sample_n")
        u = _util.noise(self.xp, "uniform", (n,) + self.batch_shape, self.low.dtype)
        return self.low + self.scale * u


@distribution.register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p: Uniform, q: Uniform) -> variable.Variable:
    kl = F.log(q.scale) - F.log(p.scale)
    # Mass of p outside q's support makes the divergence infinite.
    outside = (p.low.array < q.low.array) | (p.high.array > q.high.array)
    return _util.where(outside, math.inf, kl)


__all__ = ["Uniform"]
