"""The beta distribution."""

from __future__ import annotations

from typing import Any

from chainer import distribution, variable
from chainer import functions as F
from chainer.distributions import _util

_NAME = "chainer.distributions.Beta"


class Beta(_util.ScalarEventDistribution):
    """Beta Distribution.

    .. math::
        p(x; a, b) = \\frac{x^{a - 1} (1 - x)^{b - 1}}{B(a, b)}, \\qquad 0 \\le x \\le 1.

    Points outside :math:`[0, 1]` have log-density :math:`-\\infty`. Samples come from
    the array module's beta generator and are not differentiable.

    Args:
        a: First shape parameter :math:`a > 0`.
        b: Second shape parameter :math:`b > 0`.

    Example:
        >>> import chainer.distributions as D
        >>> d = D.Beta(np.array(2., 'f'), np.array(2., 'f'))
        >>> float(d.mean.array)
        0.5
    """

    _param_names = ("a", "b")
    _support = "[0, 1]"

    def __init__(self, a: Any, b: Any) -> None:
        self.a, self.b = _util.params(_NAME, a=a, b=b)

    def log_prob(self, x: Any) -> variable.Variable:
        x = _util.value(x, self.a, f"{_NAME}.log_prob")
        inside = (x.array >= 0) & (x.array <= 1)

        def density(x: variable.Variable) -> variable.Variable:
            return (self.a - 1.0) * F.log(x) + (self.b - 1.0) * F.log1p(-x) - _util.lbeta(self.a, self.b)

        return _util.masked(inside, density, x, 0.5, -float("inf"))

    @property
    def entropy(self) -> variable.Variable:
        a, b = self.a, self.b
        total = a + b
        return (
            _util.lbeta(a, b) - (a - 1.0) * F.digamma(a) - (b - 1.0) * F.digamma(b) + (total - 2.0) * F.digamma(total)
        )

    @property
    def mean(self) -> variable.Variable:
        return self.a / (self.a + self.b)

    @property
    def mode(self) -> variable.Variable:
        """:math:`(a - 1) / (a + b - 2)`, defined for :math:`a, b > 1`."""
        return (self.a - 1.0) / (self.a + self.b - 2.0)

    @property
    def variance(self) -> variable.Variable:
        total = self.a + self.b
        return self.a * self.b / (F.square(total) * (total + 1.0))

    def sample_n(self, n: int) -> variable.Variable:
        n = _util.check_sample_n(n, f"{_NAME}.sample_n")
        shape = (n,) + self.batch_shape
        x = _util.noise(self.xp, "beta", shape, self.a.dtype, a=self.a.array, b=self.b.array)
        return variable.Variable(x, requires_grad=False)


@distribution.register_kl(Beta, Beta)
def _kl_beta_beta(p: Beta, q: Beta) -> variable.Variable:
    total = p.a + p.b
    return (
        _util.lbeta(q.a, q.b)
        - _util.lbeta(p.a, p.b)
        + (p.a - q.a) * F.digamma(p.a)
        + (p.b - q.b) * F.digamma(p.b)
        + (q.a - p.a + q.b - p.b) * F.digamma(total)
    )


__all__ = ["Beta"]
