"""The interface of probability distributions, and the Kullback-Leibler registry.

Concrete distributions live in :mod:`chainer.distributions`. A distribution holds its
parameters as :class:`~chainer.Variable` s; everything it computes (log densities,
moments, entropies, reparameterised samples) is built from differentiable functions,
so gradients flow back to the parameters.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chainer import backend, variable
from chainer import functions as F


class Distribution:
    """Interface of Distribution.

    A distribution over values of shape ``event_shape``, replicated independently over
    ``batch_shape`` (each batch element has its own parameters). Methods that evaluate
    points (``log_prob``, ``cdf``...) take arrays or variables whose trailing axes are
    ``batch_shape + event_shape`` (leading axes broadcast, e.g. several samples at
    once) and return a :class:`~chainer.Variable` without the event axes.

    Subclasses define :attr:`batch_shape`, :attr:`event_shape`, :attr:`params`,
    :attr:`support`, and whichever of the methods below the distribution has. A method
    a distribution does not define raises ``NotImplementedError`` naming it.
    """

    # -- shapes and parameters --------------------------------------------------------------

    @property
    def batch_shape(self) -> tuple[int, ...]:
        """Shape of the batch of independent distributions."""
        raise self._missing("batch_shape")

    @property
    def event_shape(self) -> tuple[int, ...]:
        """Shape of one draw of one distribution of the batch (``()`` for scalars)."""
        raise self._missing("event_shape")

    @property
    def params(self) -> dict[str, variable.Variable]:
        """The parameters, by name."""
        raise self._missing("params")

    @property
    def support(self) -> str:
        """A description of the set of values the distribution gives mass to
        (``'real'``, ``'positive'``, ``'[0, 1]'``...)."""
        raise self._missing("support")

    @property
    def xp(self) -> Any:
        """The array module (``numpy`` or ``cupy``) of the parameters."""
        arrays = [p.array for p in self.params.values()]
        return backend.get_array_module(*arrays)

    # -- densities and distribution functions ------------------------------------------------

    def log_prob(self, x: Any) -> variable.Variable:
        """Logarithm of the probability density (or mass) function at ``x``."""
        if _overrides(self, "prob"):
            return F.log(self.prob(x))
        raise self._missing("log_prob")

    def prob(self, x: Any) -> variable.Variable:
        """Probability density (or mass) function at ``x``."""
        return F.exp(self.log_prob(x))

    def cdf(self, x: Any) -> variable.Variable:
        """Cumulative distribution function, :math:`P(X \\le x)`."""
        if _overrides(self, "log_cdf"):
            return F.exp(self.log_cdf(x))
        raise self._missing("cdf")

    def log_cdf(self, x: Any) -> variable.Variable:
        """Logarithm of the cumulative distribution function."""
        if _overrides(self, "cdf"):
            return F.log(self.cdf(x))
        raise self._missing("log_cdf")

    def icdf(self, x: Any) -> variable.Variable:
        """Inverse of the cumulative distribution function (the quantile function) at
        probabilities ``x``."""
        raise self._missing("icdf")

    def survival_function(self, x: Any) -> variable.Variable:
        """Survival function, :math:`P(X > x) = 1 - \\mathrm{cdf}(x)`."""
        if _overrides(self, "log_survival_function"):
            return F.exp(self.log_survival_function(x))
        return 1.0 - self.cdf(x)

    def log_survival_function(self, x: Any) -> variable.Variable:
        """Logarithm of the survival function."""
        return F.log(self.survival_function(x))

    def perplexity(self, x: Any) -> variable.Variable:
        """Perplexity of the distribution at the observed points ``x``:
        :math:`\\exp(-\\log p(x))`, the inverse of the probability (density)."""
        return F.exp(-self.log_prob(x))

    # -- summaries ----------------------------------------------------------------------------

    @property
    def entropy(self) -> variable.Variable:
        """Entropy, one value per batch element."""
        raise self._missing("entropy")

    @property
    def mean(self) -> variable.Variable:
        """Mean, of shape ``batch_shape + event_shape``."""
        raise self._missing("mean")

    @property
    def mode(self) -> variable.Variable:
        """Mode (the most probable value)."""
        raise self._missing("mode")

    @property
    def variance(self) -> variable.Variable:
        """Variance of each element of an event."""
        if _overrides(self, "stddev"):
            return F.square(self.stddev)
        raise self._missing("variance")

    @property
    def stddev(self) -> variable.Variable:
        """Standard deviation of each element of an event."""
        if _overrides(self, "variance"):
            return F.sqrt(self.variance)
        raise self._missing("stddev")

    @property
    def covariance(self) -> variable.Variable:
        """Covariance matrix of an event, of shape ``batch_shape + (n, n)``."""
        raise self._missing("covariance")

    # -- sampling -----------------------------------------------------------------------------

    def sample(self, sample_shape: Any = ()) -> variable.Variable:
        """Draw samples of shape ``sample_shape + batch_shape + event_shape``.

        Args:
            sample_shape: An int or a tuple of ints.
        """
        if isinstance(sample_shape, int) and not isinstance(sample_shape, bool):
            sample_shape = (sample_shape,)
        if not isinstance(sample_shape, tuple) or not all(
            isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in sample_shape
        ):
            raise TypeError(
                f"{type(self).__name__}.sample: sample_shape must be an int or a tuple of non-negative ints, "
                f"got {sample_shape!r}"
            )
        n = 1
        for s in sample_shape:
            n *= s
        samples = self.sample_n(n)
        return F.reshape(samples, sample_shape + tuple(samples.shape[1:]))

    def sample_n(self, n: int) -> variable.Variable:
        """Draw ``n`` samples: a variable of shape ``(n,) + batch_shape + event_shape``."""
        raise self._missing("sample_n")

    # -- helpers ------------------------------------------------------------------------------

    def _missing(self, name: str) -> NotImplementedError:
        return NotImplementedError(f"{type(self).__name__} does not implement {name}")

    def __repr__(self) -> str:
        try:
            params = ", ".join(f"{k}={_short(v)}" for k, v in self.params.items())
        except NotImplementedError:
            params = ""
        return f"{type(self).__name__}({params})"


def _overrides(dist: Distribution, name: str) -> bool:
    return getattr(type(dist), name) is not getattr(Distribution, name)


def _short(v: Any) -> str:
    array = getattr(v, "array", v)
    shape = getattr(array, "shape", None)
    if shape is None:
        return repr(array)
    if array.size <= 4:
        return repr(backend.cpu().send(array).tolist())
    return f"<{array.dtype} {tuple(shape)}>"


# -- Kullback-Leibler divergence ----------------------------------------------------------------

_KL_REGISTRY: dict[tuple[type, type], Callable[[Any, Any], variable.Variable]] = {}


def register_kl(Dist1: type, Dist2: type) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator to register KL divergence function.

    The decorated function ``kl(dist1, dist2)`` computes
    :math:`D_{KL}(p_1 \\| p_2)` for instances of ``Dist1`` and ``Dist2`` (or of their
    subclasses; the most specific registration wins).

    Args:
        Dist1: A subclass of :class:`~chainer.Distribution`.
        Dist2: A subclass of :class:`~chainer.Distribution`.

    Example:
        >>> import chainer.distributions as D
        >>> class Coin(D.Bernoulli):
        ...     pass
        >>> @chainer.register_kl(Coin, Coin)
        ... def _kl_coin(p, q):
        ...     return p.p * F.log(p.p / q.p) + (1 - p.p) * F.log((1 - p.p) / (1 - q.p))
        >>> kl = chainer.kl_divergence(Coin(p=np.array(0.5, 'f')), Coin(p=np.array(0.25, 'f')))
        >>> round(float(kl.array), 4)
        0.1438
    """
    for name, cls in (("Dist1", Dist1), ("Dist2", Dist2)):
        if not (isinstance(cls, type) and issubclass(cls, Distribution)):
            raise TypeError(f"chainer.register_kl: {name} must be a subclass of chainer.Distribution, got {cls!r}")

    def decorator(kl: Callable[..., Any]) -> Callable[..., Any]:
        if not callable(kl):
            raise TypeError(f"chainer.register_kl: expected a function, got {type(kl).__name__}")
        _KL_REGISTRY[Dist1, Dist2] = kl
        return kl

    return decorator


def _find_kl(type1: type, type2: type) -> Callable[..., Any] | None:
    # Walk both method resolution orders; the pair with the smallest combined distance
    # to the actual types is the most specific registration.
    best = None
    best_rank: tuple[int, int] | None = None
    for i, c1 in enumerate(type1.__mro__):
        for j, c2 in enumerate(type2.__mro__):
            kl = _KL_REGISTRY.get((c1, c2))
            if kl is not None and (best_rank is None or (i + j, i) < best_rank):
                best, best_rank = kl, (i + j, i)
    return best


def kl_divergence(dist1: Distribution, dist2: Distribution) -> variable.Variable:
    """Computes Kullback-Leibler divergence.

    :math:`D_{KL}(p_1 \\| p_2) = \\mathbb{E}_{x \\sim p_1}[\\log p_1(x) - \\log p_2(x)]`,
    one value per batch element, with a function registered by
    :func:`~chainer.register_kl`.

    Args:
        dist1: The distribution :math:`p_1`.
        dist2: The distribution :math:`p_2`.

    Returns:
        A :class:`~chainer.Variable` of shape ``batch_shape``.

    Example:
        >>> import chainer.distributions as D
        >>> p = D.Normal(np.array(0., 'f'), np.array(1., 'f'))
        >>> q = D.Normal(np.array(1., 'f'), np.array(1., 'f'))
        >>> float(chainer.kl_divergence(p, q).array)
        0.5
    """
    for name, d in (("dist1", dist1), ("dist2", dist2)):
        if not isinstance(d, Distribution):
            raise TypeError(f"chainer.kl_divergence: {name} must be a chainer.Distribution, got {type(d).__name__}")
    kl = _find_kl(type(dist1), type(dist2))
    if kl is None:
        raise NotImplementedError(
            f"chainer.kl_divergence: no KL divergence is registered for ({type(dist1).__name__}, "
            f"{type(dist2).__name__}); register one with chainer.register_kl"
        )
    return kl(dist1, dist2)


def cross_entropy(dist1: Distribution, dist2: Distribution) -> variable.Variable:
    """Computes Cross entropy.

    :math:`H(p_1, p_2) = -\\mathbb{E}_{x \\sim p_1}[\\log p_2(x)] = H(p_1) + D_{KL}(p_1 \\| p_2)`.

    Args:
        dist1: The distribution :math:`p_1`.
        dist2: The distribution :math:`p_2`.

    Returns:
        A :class:`~chainer.Variable` of shape ``batch_shape``.
    """
    return dist1.entropy + kl_divergence(dist1, dist2)


__all__ = ["Distribution", "cross_entropy", "kl_divergence", "register_kl"]
