"""The Dirichlet distribution."""

from __future__ import annotations

from typing import Any

from chainer import distribution, variable
from chainer import functions as F
from chainer.distributions import _util

_NAME = "chainer.distributions.Dirichlet"


class Dirichlet(distribution.Distribution):
    """Dirichlet Distribution.

    .. math::
        p(x; \\alpha) = \\frac{\\Gamma(\\alpha_0)}{\\prod_i \\Gamma(\\alpha_i)} \\prod_i x_i^{\\alpha_i - 1},
        \\qquad \\alpha_0 = \\sum_i \\alpha_i,

    on the probability simplex (:math:`x_i \\ge 0`, :math:`\\sum_i x_i = 1`). The last
    axis of ``alpha`` is the event axis. Samples (normalised gamma draws) are not
    differentiable.

    Args:
        alpha: Concentration parameters :math:`\\alpha_i > 0`.

    Example:
        >>> import chainer.distributions as D
        >>> d = D.Dirichlet(np.array([1., 3.], 'f'))
        >>> d.mean.array
        array([0.25, 0.75], dtype=float32)
    """

    def __init__(self, alpha: Any) -> None:
        (self.alpha,) = _util.params(_NAME, alpha=alpha)
        if self.alpha.ndim < 1:
            raise ValueError(f"{_NAME}: the event axis is the last axis; got a 0-dimensional alpha")

    @property
    def alpha0(self) -> variable.Variable:
        """:math:`\\alpha_0 = \\sum_i \\alpha_i`, of shape ``batch_shape``."""
        return F.sum(self.alpha, axis=-1)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self.alpha.shape[:-1]

    @property
    def event_shape(self) -> tuple[int, ...]:
        return self.alpha.shape[-1:]

    @property
    def params(self) -> dict[str, variable.Variable]:
        return {"alpha": self.alpha}

    @property
    def support(self) -> str:
        return "[0, 1]"

    def _log_normalizer(self) -> variable.Variable:
        return F.sum(F.lgamma(self.alpha), axis=-1) - F.lgamma(self.alpha0)

    def log_prob(self, x: Any) -> variable.Variable:
        x = _util.value(x, self.alpha, f"{_NAME}.log_prob")
        inside = (x.array >= 0).all(axis=-1, keepdims=True)

        def density(x: variable.Variable) -> variable.Variable:
            return F.sum((self.alpha - 1.0) * F.log(x), axis=-1, keepdims=True)

        log_kernel = _util.masked(inside, density, x, 1.0, -float("inf"))
        return F.squeeze(log_kernel, axis=-1) - self._log_normalizer()

    @property
    def entropy(self) -> variable.Variable:
        k = self.alpha.shape[-1]
        alpha0 = self.alpha0
        return (
            self._log_normalizer()
            + (alpha0 - k) * F.digamma(alpha0)
            - F.sum((self.alpha - 1.0) * F.digamma(self.alpha), axis=-1)
        )

    @property
    def mean(self) -> variable.Variable:
        return self.alpha / F.expand_dims(self.alpha0, -1)

    @property
    def mode(self) -> variable.Variable:
        """:math:`(\\alpha_i - 1) / (\\alpha_0 - K)`, defined for all :math:`\\alpha_i > 1`."""
        k = self.alpha.shape[-1]
        return (self.alpha - 1.0) / F.expand_dims(self.alpha0 - k, -1)

    @property
    def variance(self) -> variable.Variable:
        alpha0 = F.expand_dims(self.alpha0, -1)
        return self.alpha * (alpha0 - self.alpha) / (F.square(alpha0) * (alpha0 + 1.0))

    @property
    def covariance(self) -> variable.Variable:
        """:math:`(\\mathrm{diag}(m) - m m^\\top) / (\\alpha_0 + 1)` with :math:`m` the mean."""
        m = self.mean
        eye = self.xp.eye(m.shape[-1], dtype=m.dtype)
        scale = F.expand_dims(F.expand_dims(self.alpha0 + 1.0, -1), -1)
        outer = F.expand_dims(m, -1) * F.expand_dims(m, -2)
        return (F.expand_dims(m, -1) * eye - outer) / scale

    def sample_n(self, n: int) -> variable.Variable:
        n = _util.check_sample_n(n, f"{_NAME}.sample_n")
        xp = self.xp
        alpha = self.alpha.array
        # numpy.random.dirichlet batch element after batch element (n samples each), as
        # Chainer 7.8.1 draws them, so that a program seeded with numpy.random.seed gets the
        # same samples: gamma draws times the reciprocal of their running (in-order) sum, in
        # float64, then cast.
        shape = alpha.shape[:-1] + (n,) + alpha.shape[-1:]
        g = xp.random.standard_gamma(xp.broadcast_to(alpha[..., None, :], shape), size=shape)
        x = (g * (1.0 / xp.cumsum(g, axis=-1)[..., -1:])).astype(alpha.dtype, copy=False)
        return variable.Variable(xp.ascontiguousarray(xp.moveaxis(x, -2, 0)), requires_grad=False)


@distribution.register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p: Dirichlet, q: Dirichlet) -> variable.Variable:
    digamma_diff = F.digamma(p.alpha) - F.expand_dims(F.digamma(p.alpha0), -1)
    return q._log_normalizer() - p._log_normalizer() + F.sum((p.alpha - q.alpha) * digamma_diff, axis=-1)


__all__ = ["Dirichlet"]
