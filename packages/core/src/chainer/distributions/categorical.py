"""The categorical distribution over class indices."""

from __future__ import annotations

import functools
from typing import Any

import numpy

from chainer import backend, distribution, variable
from chainer import functions as F
from chainer.distributions import _util
from chainer.utils import argument, force_array

_NAME = "chainer.distributions.Categorical"


def _check_probabilities(p: variable.Variable, where: str) -> None:
    if p.ndim < 1:
        raise ValueError(f"{where}: the class axis is the last axis; got a 0-dimensional parameter")


def sample_indices(xp: Any, p: Any, n: int) -> Any:
    """``n`` draws of class indices from probabilities ``p`` (last axis: classes), by
    inverting the cumulative distribution with one uniform draw each.

    The draws are those of Chainer 7.8.1, so that a program seeded with
    ``numpy.random.seed`` samples the same classes: batch element after batch element,
    ``n`` uniforms each (what ``numpy.random.choice(k, n, p=row)`` does row by row), the
    row's float64 cumulative sum divided by its total, and the first class whose cumulative
    probability exceeds the uniform (``searchsorted(..., side="right")``, so a class of
    probability zero is never drawn).
    """
    batch_shape = p.shape[:-1]
    cdf = xp.cumsum(p.astype(numpy.float64), axis=-1)
    cdf /= cdf[..., -1:]
    u = xp.random.random_sample(batch_shape + (n, 1))
    index = (cdf[..., None, :] <= u).sum(axis=-1)
    index = xp.minimum(index, p.shape[-1] - 1).astype(numpy.int32)
    # (batch..., n) -> (n, batch...)
    return xp.ascontiguousarray(xp.moveaxis(index, -1, 0))


def gather_last(log_p: variable.Variable, x: Any) -> variable.Variable:
    """``log_p[..., x]``: one entry of the last axis per element of the int array ``x``
    (``x`` may have leading sample axes)."""
    k = log_p.shape[-1]
    target_shape = x.shape + (k,)
    if log_p.shape != target_shape:
        log_p = F.broadcast_to(log_p, target_shape)
    flat = F.reshape(log_p, (-1, k))
    return F.reshape(F.select_item(flat, x.reshape(-1)), x.shape)


def as_indices(x: Any, k: int, where: str) -> Any:
    array = x.array if isinstance(x, variable.Variable) else x
    if not hasattr(array, "dtype"):
        raise TypeError(f"{where}: expected an array of class indices, got {type(x).__name__}")
    xp = backend.get_array_module(array)
    if array.dtype.kind == "f":
        if not bool((array == xp.floor(array)).all()):
            raise ValueError(f"{where}: class indices must be integers")
    elif array.dtype.kind not in "iub":
        raise TypeError(f"{where}: class indices must be integers, got dtype {array.dtype}")
    if array.size and (bool((array < 0).any()) or bool((array >= k).any())):
        raise ValueError(f"{where}: class indices must be in [0, {k}), got values in [{array.min()}, {array.max()}]")
    return array.astype(numpy.int32, copy=False)


class Categorical(distribution.Distribution):
    """Categorical Distribution.

    .. math::
        P(x = i) = p_i, \\qquad i = 0, \\dots, K - 1.

    The last axis of the parameter holds the :math:`K` classes; the other axes are the
    batch. ``Categorical(p=None, *, logit=None)``: give the probabilities ``p`` or
    unnormalised log-probabilities ``logit`` (normalised with a log-softmax). Points
    and samples are ``int32`` class indices.

    Args:
        p: Class probabilities (the last axis sums to one).
        logit: Unnormalised log-probabilities, instead of ``p``.

    Example:
        >>> import chainer.distributions as D
        >>> d = D.Categorical(np.array([0.25, 0.75], 'f'))
        >>> d.prob(np.array(1)).array
        array(0.75, dtype=float32)
    """

    def __init__(self, p: Any = None, **kwargs: Any) -> None:
        (logit,) = argument.parse_kwargs(kwargs, ("logit", None))
        if (p is None) == (logit is None):
            raise ValueError(f"{_NAME}: give exactly one of p and logit")
        if p is not None:
            (self.p,) = _util.params(_NAME, p=p)
            _check_probabilities(self.p, _NAME)
            self._from_logit = False
        else:
            (self.logit,) = _util.params(_NAME, logit=logit)
            _check_probabilities(self.logit, _NAME)
            self._from_logit = True

    @functools.cached_property
    def p(self) -> variable.Variable:
        return F.exp(self.log_p)

    @functools.cached_property
    def log_p(self) -> variable.Variable:
        """Log-probabilities of the classes."""
        if self._from_logit:
            return F.log_softmax(self.logit, axis=-1)
        return F.log(self.p)

    @property
    def _param(self) -> variable.Variable:
        return self.logit if self._from_logit else self.p

    @property
    def batch_shape(self) -> tuple[int, ...]:
        return self._param.shape[:-1]

    @property
    def event_shape(self) -> tuple[int, ...]:
        return ()

    @property
    def params(self) -> dict[str, variable.Variable]:
        return {"logit": self.logit} if self._from_logit else {"p": self.p}

    @property
    def support(self) -> str:
        return f"{{0, 1, ..., {self._param.shape[-1] - 1}}}"

    def log_prob(self, x: Any) -> variable.Variable:
        index = as_indices(x, self._param.shape[-1], f"{_NAME}.log_prob")
        return gather_last(self.log_p, index)

    @property
    def entropy(self) -> variable.Variable:
        return -F.sum(_util.xlogx(self.p), axis=-1)

    @property
    def mode(self) -> variable.Variable:
        """The most probable class (``int32``, not differentiable)."""
        index = self._param.array.argmax(axis=-1).astype(numpy.int32)
        return variable.Variable(force_array(index), requires_grad=False)

    def sample_n(self, n: int) -> variable.Variable:
        n = _util.check_sample_n(n, f"{_NAME}.sample_n")
        return variable.Variable(sample_indices(self.xp, self.p.array, n), requires_grad=False)


@distribution.register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p: Categorical, q: Categorical) -> variable.Variable:
    return F.sum(_util.xlogx(p.p) - p.p * q.log_p, axis=-1)


__all__ = ["Categorical"]
