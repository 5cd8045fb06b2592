"""Reinterpreting batch axes of a distribution as event axes."""

from __future__ import annotations

from typing import Any

from chainer import distribution, variable
from chainer import functions as F
from chainer.distributions import _util

_NAME = "chainer.distributions.Independent"


def _prod(shape: tuple[int, ...]) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


class Independent(distribution.Distribution):
    """Independent distribution.

    Treats the rightmost ``reinterpreted_batch_ndims`` batch axes of ``distribution``
    as event axes: one event is the tuple of independent draws along those axes, so
    its log-probability (and entropy) is the sum over them. For example a batch of
    :math:`d` univariate normals becomes one :math:`d`-dimensional normal with a
    diagonal covariance.

    The joint :meth:`cdf` is the product of the marginal ones (:math:`P(X \\le x)`
    componentwise), :meth:`survival_function` the product of the marginal survival
    functions (:math:`P(X > x)` componentwise); :meth:`icdf` applies the marginal
    quantile functions elementwise.

    Args:
        distribution: The base :class:`~chainer.Distribution`.
        reinterpreted_batch_ndims: How many rightmost batch axes become event axes;
            ``None`` means all of them but the first (``max(0, batch_ndim - 1)``).

    Example:
        >>> import chainer.distributions as D
        >>> base = D.Normal(np.zeros((2, 3), 'f'), np.ones((2, 3), 'f'))
        >>> d = D.Independent(base, 1)
        >>> d.batch_shape, d.event_shape
        ((2,), (3,))
    """

    def __init__(self, distribution: distribution.Distribution, reinterpreted_batch_ndims: int | None = None) -> None:
        from chainer import distribution as distribution_module

        if not isinstance(distribution, distribution_module.Distribution):
            raise TypeError(f"{_NAME}: distribution must be a chainer.Distribution, got {type(distribution).__name__}")
        batch_ndim = len(distribution.batch_shape)
        if reinterpreted_batch_ndims is None:
            # 7.8.1's default: every batch axis but the first becomes an event axis.
            reinterpreted_batch_ndims = max(0, batch_ndim - 1)
        if isinstance(reinterpreted_batch_ndims, bool) or not isinstance(reinterpreted_batch_ndims, int):
            raise TypeError(
                f"{_NAME}: reinterpreted_batch_ndims must be an int or None, got {reinterpreted_batch_ndims!r}"
            )
        if not 0 <= reinterpreted_batch_ndims <= batch_ndim:
            raise ValueError(
                f"{_NAME}: reinterpreted_batch_ndims must be in [0, {batch_ndim}] for a distribution of batch "
                f"shape {distribution.batch_shape}, got {reinterpreted_batch_ndims}"
            )
        self._distribution = distribution
        self._n = reinterpreted_batch_ndims

    @property
    def distribution(self) -> distribution.Distribution:
        """The base distribution."""
        return self._distribution

    @property
    def reinterpreted_batch_ndims(self) -> int:
        """How many rightmost batch axes of the base distribution are event axes."""
        return self._n

    @property
    def batch_shape(self) -> tuple[int, ...]:
        shape = self.distribution.batch_shape
        return shape[: len(shape) - self._n]

    @property
    def event_shape(self) -> tuple[int, ...]:
        shape = self.distribution.batch_shape
        return shape[len(shape) - self._n :] + self.distribution.event_shape

    @property
    def params(self) -> dict[str, variable.Variable]:
        return self.distribution.params

    @property
    def support(self) -> str:
        return self.distribution.support

    @property
    def xp(self) -> Any:
        return self.distribution.xp

    def _sum(self, x: variable.Variable) -> variable.Variable:
        return _util.sum_rightmost(x, self._n)

    def log_prob(self, x: Any) -> variable.Variable:
        return self._sum(self.distribution.log_prob(x))

    def prob(self, x: Any) -> variable.Variable:
        return F.exp(self.log_prob(x))

    def log_cdf(self, x: Any) -> variable.Variable:
        return self._sum(self.distribution.log_cdf(x))

    def cdf(self, x: Any) -> variable.Variable:
        return self._prod(self.distribution.cdf(x))

    def log_survival_function(self, x: Any) -> variable.Variable:
        return self._sum(self.distribution.log_survival_function(x))

    def survival_function(self, x: Any) -> variable.Variable:
        return self._prod(self.distribution.survival_function(x))

    def _prod(self, x: variable.Variable) -> variable.Variable:
        if self._n == 0:
            return x
        return F.prod(x, axis=tuple(range(x.ndim - self._n, x.ndim)))

    def icdf(self, x: Any) -> variable.Variable:
        return self.distribution.icdf(x)

    @property
    def entropy(self) -> variable.Variable:
        return self._sum(self.distribution.entropy)

    @property
    def mean(self) -> variable.Variable:
        return self.distribution.mean

    @property
    def mode(self) -> variable.Variable:
        return self.distribution.mode

    @property
    def variance(self) -> variable.Variable:
        return self.distribution.variance

    @property
    def stddev(self) -> variable.Variable:
        return self.distribution.stddev

    @property
    def covariance(self) -> variable.Variable:
        """Block-diagonal covariance of the flattened event: one block per reinterpreted
        batch element (the base covariance, or its variance for scalar events), of shape
        ``batch_shape + (n, n)`` with ``n`` the number of elements of an event."""
        base = self.distribution
        if base.event_shape == ():
            m = 1
            blocks = F.expand_dims(F.expand_dims(base.variance, -1), -1)
        else:
            m = _prod(base.event_shape)
            blocks = base.covariance
        batch = self.batch_shape
        r = _prod(base.batch_shape[len(batch) :])
        blocks = F.reshape(blocks, batch + (r, m, m))
        eye = self.xp.eye(r, dtype=blocks.dtype).reshape(r, 1, r, 1)
        # out[..., i, a, j, b] = blocks[..., i, a, b] if i == j else 0
        out = F.expand_dims(blocks, -2) * eye
        return F.reshape(out, batch + (r * m, r * m))

    def sample_n(self, n: int) -> variable.Variable:
        return self.distribution.sample_n(n)

    def __repr__(self) -> str:
        return f"Independent({self.distribution!r}, reinterpreted_batch_ndims={self._n})"


@distribution.register_kl(Independent, Independent)
def _kl_independent_independent(p: Independent, q: Independent) -> variable.Variable:
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise ValueError(
            "chainer.kl_divergence: Independent distributions with different reinterpreted_batch_ndims "
            f"({p.reinterpreted_batch_ndims} and {q.reinterpreted_batch_ndims})"
        )
    return p._sum(distribution.kl_divergence(p.distribution, q.distribution))


__all__ = ["Independent"]
