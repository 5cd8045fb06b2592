"""The Bernoulli distribution."""

from __future__ import annotations

import functools
from typing import Any

import numpy

from chainer import distribution, variable
from chainer import functions as F
from chainer.distributions import _util

_NAME = "chainer.distributions.Bernoulli"


class Bernoulli(distribution.Distribution):
    """Bernoulli Distribution.

    .. math::
        P(x = 1) = p, \\qquad P(x = 0) = 1 - p.

    Give exactly one of ``p`` and ``logit`` (:math:`\\log p - \\log(1 - p)`); with
    ``logit`` the log-probabilities are computed without forming ``p``, which is stable
    for large logits. :meth:`log_prob` accepts any real ``x`` (it evaluates
    :math:`x \\log p + (1 - x) \\log(1 - p)`, a common relaxation for data in
    :math:`[0, 1]`); with ``binary_check=True`` points outside :math:`\\{0, 1\\}` get
    :math:`-\\infty`. Samples are ``int32`` arrays of zeros and ones (not differentiable).

    Args:
        p: Probability of ``1``, in :math:`[0, 1]`.
        logit: Log-odds of ``1``, instead of ``p``.
        binary_check: Give :math:`-\\infty` log-probability to non-binary points.

    Example:
        >>> import chainer.distributions as D
        >>> d = D.Bernoulli(logit=np.array([0.], 'f'))
        >>> d.prob(np.array([1], 'i')).array
        array([0.5], dtype=float32)
    """

    def __init__(self, p: Any = None, logit: Any = None, binary_check: bool = False) -> None:
        if (p is None) == (logit is None):
            raise ValueError(f"{_NAME}: give exactly one of p and logit")
        if p is not None:
            (self.p,) = _util.params(_NAME, p=p)
            self._from_logit = False
        else:
            (self.logit,) = _util.params(_NAME, logit=logit)
            self._from_logit = True
        self.binary_check = bool(binary_check)

    @functools.cached_property
    def p(self) -> variable.Variable:
        return F.sigmoid(self.logit)

    @functools.cached_property
    def logit(self) -> variable.Variable:
        return self._log_p - self._log_1mp

    @functools.cached_property
    def _log_p(self) -> variable.Variable:
        return -F.softplus(-self.logit) if self._from_logit else F.log(self.p)

    @functools.cached_property
    def _log_1mp(self) -> variable.Variable:
        return -F.softplus(self.logit) if self._from_logit else F.log1p(-self.p)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self._param.shape

    @property
    def _param(self) -> variable.Variable:
        return self.logit if self._from_logit else self.p

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, variable.Variable]:
        return {"logit": self.logit} if self._from_logit else {"p": self.p}

    @property
    def support(self) -> str:
        return "{0, 1}"

    def log_prob(self, x: Any) -> variable.Variable:
        x = _util.value(x, self._param, f"{_NAME}.log_prob")
        xa = x.array
        y = x * self._log_p + (1.0 - x) * self._log_1mp
        # Exact outcomes pick one log-probability; this stays finite when the other
        # one is -inf (p = 0 or 1), where the product form would give 0 * inf = nan.
        y = _util.where(xa == 1, self._log_p, _util.where(xa == 0, self._log_1mp, y))
        if self.binary_check:
            y = _util.where((xa != 0) & (xa != 1), -numpy.inf, y)
        return y

    def cdf(self, x: Any) -> variable.Variable:
        x = _util.array_of(_util.value(x, self._param, f"{_NAME}.cdf"))
        return _util.where(x < 0, 0.0, _util.where(x < 1, 1.0 - self.p, 1.0))

    @property
    def entropy(self) -> variable.Variable:
        return -(self.p * self._log_p + (1.0 - self.p) * self._log_1mp)

    @property
    def mean(self) -> variable.Variable:
        return self.p

    @property
    def variance(self) -> variable.Variable:
        return self.p * (1.0 - self.p)

    def sample_n(self, n: int) -> variable.Variable:
        n = _util.check_sample_n(n, f"{_NAME}.sample_n")
        xp = self.xp
        u = xp.random.uniform(size=(n,) + self.batch_shape)
        return variable.Variable((u < self.p.array).astype(numpy.int32), requires_grad=False)


@distribution.register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p: Bernoulli, q: Bernoulli) -> variable.Variable:
    return p.p * (p._log_p - q._log_p) + (1.0 - p.p) * (p._log_1mp - q._log_1mp)


__all__ = ["Bernoulli"]
