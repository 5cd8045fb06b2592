"""The geometric distribution (number of trials up to the first success)."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import distribution, variable
from chainer import functions as F
from chainer.distributions import _util

_NAME = "chainer.distributions.Geometric"


class Geometric(_util.ScalarEventDistribution):
    """Geometric Distribution.

    .. math::
        P(x; p) = (1 - p)^{x - 1} p, \\qquad x = 1, 2, \\dots

    the number of Bernoulli trials up to and including the first success. Points that
    are not positive integers have log-probability :math:`-\\infty`. Samples are
    ``int32``.

    Args:
        p: Success probability of each trial, in :math:`(0, 1]`.

    Example:
        >>> import chainer.distributions as D
        >>> float(D.Geometric(np.array(0.5, 'f')).mean.array)
        2.0
    """

    _param_names = ("p",)
    _support = "positive integer"

    def __init__(self, p: Any) -> None:
        (self.p,) = _util.params(_NAME, p=p)

    def log_prob(self, x: Any) -> variable.Variable:
        x = _util.value(x, self.p, f"{_NAME}.log_prob")
        xa = x.array
        valid = (xa >= 1) & (xa == self.xp.floor(xa))
        return _util.masked(valid, lambda x: (x - 1.0) * F.log1p(-self.p) + F.log(self.p), x, 1.0, -float("inf"))

    @property
    def entropy(self) -> variable.Variable:
        p = self.p
        return -(_util.xlogx(1.0 - p) + p * F.log(p)) / p

    @property
    def mean(self) -> variable.Variable:
        return 1.0 / self.p

    @property
    def mode(self) -> variable.Variable:
        return _util.constant_like(self.p, 1.0)

    @property
    def variance(self) -> variable.Variable:
        return (1.0 - self.p) / F.square(self.p)

    def sample_n(self, n: int) -> variable.Variable:
        n = _util.check_sample_n(n, f"{_NAME}.sample_n")
        x = self.xp.random.geometric(self.p.array, size=(n,) + self.batch_shape)
        return variable.Variable(x.astype(numpy.int32), requires_grad=False)


@distribution.register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p: Geometric, q: Geometric) -> variable.Variable:
    failures = (1.0 - p.p) / p.p
    return failures * (F.log1p(-p.p) - F.log1p(-q.p)) + F.log(p.p) - F.log(q.p)


__all__ = ["Geometric"]
