"""The categorical distribution over one-hot vectors."""

from __future__ import annotations

from typing import Any

from chainer import distribution, variable
from chainer import functions as F
from chainer.distributions import _util, categorical

_NAME = "chainer.distributions.OneHotCategorical"


class OneHotCategorical(distribution.Distribution):
    """OneHotCategorical Distribution.

    The categorical distribution with outcomes written as one-hot vectors: an event is
    a vector of length :math:`K` with a single one, at index :math:`i` with probability
    :math:`p_i`. The last axis of ``p`` holds the classes (it is the event axis).
    Samples have the dtype of ``p``.

    Args:
        p: Class probabilities (the last axis sums to one).

    Example:
        >>> import chainer.distributions as D
        >>> d = D.OneHotCategorical(np.array([0.25, 0.75], 'f'))
        >>> d.prob(np.array([0., 1.], 'f')).array
        array(0.75, dtype=float32)
    """

    def __init__(self, p: Any) -> None:
        (self.p,) = _util.params(_NAME, p=p)
        if self.p.ndim < 1:
            raise ValueError(f"{_NAME}: the class axis is the last axis; got a 0-dimensional parameter")

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.p.shape[:-1]

    @property
    def event_shape(self) -> tuple[int, ...]:
        return self.p.shape[-1:]

    @property
    def params(self) -> dict[str, variable.Variable]:
        return {"p": self.p}

    @property
    def support(self) -> str:
        return "one-hot vectors"

    def log_prob(self, x: Any) -> variable.Variable:
        x = _util.value(x, self.p, f"{_NAME}.log_prob")
        zero = self.p.array == 0
        if not bool(zero.any()):
            return F.sum(x * F.log(self.p), axis=-1)
        # A class of probability zero contributes nothing unless it is observed.
        term = x * F.log(_util.where(zero, 1.0, self.p))
        term = _util.where(zero & (_util.array_of(x) != 0), -float("inf"), term)
        return F.sum(term, axis=-1)

    @property
    def entropy(self) -> variable.Variable:
        return -F.sum(_util.xlogx(self.p), axis=-1)

    @property
    def mean(self) -> variable.Variable:
        return self.p

    @property
    def variance(self) -> variable.Variable:
        return self.p * (1.0 - self.p)

    @property
    def covariance(self) -> variable.Variable:
        """:math:`\\mathrm{diag}(p) - p p^\\top`."""
        xp = self.xp
        k = self.p.shape[-1]
        eye = xp.eye(k, dtype=self.p.dtype)
        outer = F.expand_dims(self.p, -1) * F.expand_dims(self.p, -2)
        return F.expand_dims(self.p, -1) * eye - outer

    def sample_n(self, n: int) -> variable.Variable:
        n = _util.check_sample_n(n, f"{_NAME}.sample_n")
        xp = self.xp
        index = categorical.sample_indices(xp, self.p.array, n)
        eye = xp.eye(self.p.shape[-1], dtype=self.p.dtype)
        return variable.Variable(eye[index], requires_grad=False)


@distribution.register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehot_onehot(p: OneHotCategorical, q: OneHotCategorical) -> variable.Variable:
    return F.sum(_util.xlogx(p.p) - p.p * F.log(q.p), axis=-1)


__all__ = ["OneHotCategorical"]
