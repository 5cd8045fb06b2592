"""The Pareto (type I) distribution."""

from __future__ import annotations

from typing import Any

from chainer import distribution, variable
from chainer import functions as F
from chainer.distributions import _util

_NAME = "chainer.distributions.Pareto"


class Pareto(_util.ScalarEventDistribution):
    """Pareto Distribution.

    .. math::
        p(x; x_m, \\alpha) = \\frac{\\alpha x_m^\\alpha}{x^{\\alpha + 1}}, \\qquad x \\ge x_m.

    The mean is infinite for :math:`\\alpha \\le 1` and the variance for
    :math:`\\alpha \\le 2`. Samples are reparameterised
    (:math:`x_m e^{E / \\alpha}` with :math:`E` standard exponential).

    Args:
        scale: Scale (minimum value) :math:`x_m > 0`.
        alpha: Shape :math:`\\alpha > 0`.

    Example:
        >>> import chainer.distributions as D
        >>> float(D.Pareto(np.array(1., 'f'), np.array(2., 'f')).mean.array)
        2.0
    """

    _param_names = ("scale", "alpha")
    _support = "[scale, inf]"

    def __init__(self, scale: Any, alpha: Any) -> None:
        self.scale, self.alpha = _util.params(_NAME, scale=scale, alpha=alpha)

    def _x(self, x: Any, where: str) -> variable.Variable:
        return _util.value(x, self.scale, f"{_NAME}.{where}")

    def log_prob(self, x: Any) -> variable.Variable:
        x = self._x(x, "log_prob")

        def density(x: variable.Variable) -> variable.Variable:
            return F.log(self.alpha) + self.alpha * F.log(self.scale) - (self.alpha + 1.0) * F.log(x)

        inside = x.array >= self.scale.array
        safe = self.xp.broadcast_to(self.scale.array, inside.shape)
        return _util.masked(inside, density, x, safe, -float("inf"))

    def cdf(self, x: Any) -> variable.Variable:
        x = self._x(x, "cdf")
        inside = x.array >= self.scale.array
        safe = self.xp.broadcast_to(self.scale.array, inside.shape)
        return _util.masked(inside, lambda x: 1.0 - F.exp(self.alpha * (F.log(self.scale) - F.log(x))), x, safe, 0.0)

    def icdf(self, x: Any) -> variable.Variable:
        u = self._x(x, "icdf")
        return self.scale * F.exp(-F.log1p(-u) / self.alpha)

    @property
    def entropy(self) -> variable.Variable:
        return F.log(self.scale) - F.log(self.alpha) + 1.0 / self.alpha + 1.0

    @property
    def mean(self) -> variable.Variable:
        finite = self.alpha.array > 1
        safe = self.xp.where(finite, self.alpha.array, 2.0).astype(self.alpha.dtype)
        return _util.masked(finite, lambda a: a * self.scale / (a - 1.0), self.alpha, safe, float("inf"))

    @property
    def mode(self) -> variable.Variable:
        return self.scale

    @property
    def variance(self) -> variable.Variable:
        finite = self.alpha.array > 2
        safe = self.xp.where(finite, self.alpha.array, 3.0).astype(self.alpha.dtype)

        def var(a: variable.Variable) -> variable.Variable:
            return F.square(self.scale) * a / (F.square(a - 1.0) * (a - 2.0))

        return _util.masked(finite, var, self.alpha, safe, float("inf"))

    def sample_n(self, n: int) -> variable.Variable:
        n = _util.check_sample_n(n, f"{_NAME}.sample_n")
        xp = self.xp
        dtype = self.scale.dtype
        alpha = self.alpha.array
        # numpy.random.pareto(alpha) + 1 (that is exp(E / alpha), E standard exponential),
        # rounded to the parameters' dtype before the 1 is added: Chainer 7.8.1's numbers, so
        # that a program seeded with numpy.random.seed gets the same samples.
        lomax = xp.random.pareto(xp.broadcast_to(alpha, self.batch_shape), size=(n,) + self.batch_shape)
        v = lomax.astype(dtype) + dtype.type(1)
        # t = v ** (alpha / alpha) equals v up to rounding (alpha / alpha is exactly 1) and has
        # the gradient of exp(E / alpha) with respect to alpha, -v log(v) / alpha. Adding
        # t - t.array (exactly 0 where finite) keeps v's exact value and that gradient, so the
        # sample stays differentiable in alpha as well as in scale.
        t = v ** (alpha / self.alpha)
        return self.scale * (v + (t - xp.where(xp.isfinite(t.array), t.array, 0).astype(dtype, copy=False)))


@distribution.register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p: Pareto, q: Pareto) -> variable.Variable:
    kl = F.log(p.alpha) - F.log(q.alpha) + q.alpha * (F.log(p.scale) - F.log(q.scale)) + q.alpha / p.alpha - 1.0
    # p puts mass below q's minimum, where q has none: the divergence is infinite.
    return _util.where(p.scale.array < q.scale.array, float("inf"), kl)


__all__ = ["Pareto"]
