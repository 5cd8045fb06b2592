"""The Bernoulli distribution."""

from __future__ import annotations

import functools
from typing import Any

import numpy

from chainer import backend, distribution, function_node, utils, variable
from chainer import functions as F
from chainer.distributions import _util
from chainer.utils import type_check

_NAME = "chainer.distributions.Bernoulli"


class BernoulliLogProb(function_node.FunctionNode):
    """The Bernoulli log-probability of ``x`` given the log-odds ``logit`` (of one
    shape): :math:`x \\log p + (1 - x) \\log(1 - p) = x l - \\log(1 + e^l)`, for any
    real ``x`` (a relaxation for data in :math:`[0, 1]`).

    An infinite logit (:math:`p` exactly 1 or 0) gives :math:`\\log x` (for
    :math:`l = +\\infty`) or :math:`\\log(1 - x)` (for :math:`l = -\\infty`), as in
    Chainer 7.8.1, and no gradient to the logit. With ``binary_check``, an ``x`` other
    than 0 or 1 gets :math:`-\\infty` and no gradient.
    """

    def __init__(self, binary_check: bool = False) -> None:
        self.binary_check = bool(binary_check)

    @property
    def label(self) -> str:
        return "BernoulliLogProb"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("logit", "x"))
        logit_type, x_type = in_types
        type_check.expect(
            logit_type.dtype.kind == "f", x_type.dtype == logit_type.dtype, x_type.shape == logit_type.shape
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        logit, x = inputs
        xp = backend.get_array_module(logit)
        safe = xp.where(xp.isfinite(logit), logit, 0)
        # softplus(l) = max(l, 0) + log1p(e^-|l|), free of overflow.
        y = x * safe - (xp.maximum(safe, 0) + xp.log1p(xp.exp(-abs(safe))))
        with numpy.errstate(divide="ignore", invalid="ignore"):
            y = xp.where(logit == xp.inf, xp.log(x), y)
            y = xp.where(logit == -xp.inf, xp.log1p(-x), y)
        if self.binary_check:
            y = xp.where((x != 0) & (x != 1), -xp.inf, y)
        return (utils.force_array(y, logit.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        logit, x = self.get_retained_inputs()
        (gy,) = grad_outputs
        la, xa = logit.array, x.array
        xp = backend.get_array_module(la)
        # 0-dimensional comparisons give NumPy scalars; F.where takes arrays.
        finite = utils.force_array(xp.isfinite(la))
        pinf = utils.force_array(la == xp.inf)
        minf = utils.force_array(la == -xp.inf)
        counted = utils.force_array((xa == 0) | (xa == 1)) if self.binary_check else xp.ones(la.shape, bool)
        zeros, ones = xp.zeros_like(la), xp.ones_like(la)
        safe_logit = F.where(finite, logit, zeros)
        result = []
        if 0 in indexes:
            g = gy * (x - F.sigmoid(safe_logit))
            result.append(F.where(utils.force_array(finite & counted), g, zeros))
        if 1 in indexes:
            # The derivative in x: the logit where it is finite, 1 / x at +inf and
            # -1 / (1 - x) at -inf (each divisor replaced by 1 where it does not apply).
            g = F.where(finite, gy * safe_logit, zeros)
            g = F.where(pinf, gy / F.where(pinf, x, ones), g)
            g = F.where(minf, -gy / F.where(minf, 1.0 - x, ones), g)
            result.append(F.where(counted, g, zeros))
        return tuple(result)


def _bernoulli_log_prob(logit: Any, x: Any, binary_check: bool = False) -> variable.Variable:
    """The Bernoulli log-probability of ``x`` for the log-odds ``logit`` (see
    :class:`BernoulliLogProb`); the two broadcast against each other.

    Args:
        logit: Log-odds, a variable or array of a floating dtype.
        x: Points (cast to the dtype of ``logit``).
        binary_check: Give :math:`-\\infty` to points other than 0 and 1.
    """
    logit = variable.as_variable(logit)
    x = variable.as_variable(x)
    if x.dtype != logit.dtype:
        # 7.8.1 accepts points of another dtype (a gradient check casts only the logit).
        x = F.cast(x, logit.dtype)
    shape = numpy.broadcast_shapes(logit.shape, x.shape)
    if logit.shape != shape:
        logit = F.broadcast_to(logit, shape)
    if x.shape != shape:
        x = F.broadcast_to(x, shape)
    return BernoulliLogProb(binary_check).apply((logit, x))[0]


class Bernoulli(distribution.Distribution):
    """Bernoulli Distribution.

    .. math::
        P(x = 1) = p, \\qquad P(x = 0) = 1 - p.

    Give exactly one of ``p`` and ``logit`` (:math:`\\log p - \\log(1 - p)`); with
    ``logit`` the log-probabilities are computed without forming ``p``, which is stable
    for large logits. :meth:`log_prob` accepts any real ``x`` (it evaluates
    :math:`x \\log p + (1 - x) \\log(1 - p)`, a common relaxation for data in
    :math:`[0, 1]`; where :math:`p` is exactly 1 or 0 it gives :math:`\\log x` or
    :math:`\\log(1 - x)`, as Chainer 7.8.1 does); with ``binary_check=True`` points
    outside :math:`\\{0, 1\\}` get :math:`-\\infty`. Samples are ``int32`` arrays of
    zeros and ones (not differentiable).

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
        # p of exactly 0 or 1 gives an infinite logit, which log_prob expects.
        with numpy.errstate(divide="ignore"):
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
        return _bernoulli_log_prob(self.logit, x, self.binary_check)

    def prob(self, x: Any) -> variable.Variable:
        return F.exp(self.log_prob(x))

    def cdf(self, x: Any) -> variable.Variable:
        x = _util.array_of(_util.value(x, self._param, f"{_NAME}.cdf"))
        return _util.where(x < 0, 0.0, _util.where(x < 1, 1.0 - self.p, 1.0))

    @property
    def entropy(self) -> variable.Variable:
        # x log x taken as 0 at x = 0: p of exactly 0 or 1 has entropy 0, not NaN.
        return -(_util.xlogx(self.p) + _util.xlogx(1.0 - self.p))

    @property
    def mean(self) -> variable.Variable:
        return self.p

    @property
    def variance(self) -> variable.Variable:
        return self.p * (1.0 - self.p)

    def sample_n(self, n: int) -> variable.Variable:
        n = _util.check_sample_n(n, f"{_NAME}.sample_n")
        xp = self.xp
        shape = (n,) + self.batch_shape
        if xp is numpy:
            # numpy.random.binomial(1, p): the numbers Chainer 7.8.1 draws, so that a program
            # seeded with numpy.random.seed gets the same samples (its inversion for p <= 1/2
            # and 1 - X(1 - p) above give other values than ``uniform < p`` from one stream).
            x = numpy.random.binomial(1, self.p.array, size=shape)
        else:
            x = xp.random.uniform(size=shape) < self.p.array
        return variable.Variable(x.astype(numpy.int32), requires_grad=False)


@distribution.register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p: Bernoulli, q: Bernoulli) -> variable.Variable:
    return p.p * (p._log_p - q._log_p) + (1.0 - p.p) * (p._log_1mp - q._log_1mp)


__all__ = ["Bernoulli", "BernoulliLogProb"]
