"""Negative sampling loss (word2vec)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

from chainer import backend, variable
from chainer.functions import _composite
from chainer.functions.loss import _common
from chainer.utils import type_check

_WHERE = "negative_sampling"
_IGNORE = -1


def _check_embedding_types(in_types: Any) -> None:
    type_check._argname(in_types, ("x", "t", "W"))
    x_type, t_type, w_type = in_types
    type_check.expect(
        x_type.dtype.kind == "f",
        x_type.ndim == 2,
        t_type.dtype.kind == "i",
        t_type.ndim == 1,
        x_type.shape[0] == t_type.shape[0],
        w_type.dtype == x_type.dtype,
        w_type.ndim == 2,
        w_type.shape[1] == x_type.shape[1],
    )


def _check_embedding_inputs(x: Any, t: Any, W: Any, label: str) -> None:
    _common.check_arguments(_check_embedding_types, (x, t, W), label)


def _scores(x: Any, W: Any, index: Any) -> variable.Variable:
    """``scores[b, k] = W[index[b, k]] . x[b]``: one gather and one batched product."""
    from chainer.functions.array import reshape
    from chainer.functions.math import matmul

    x = variable.as_variable(x)
    batch, n_unit = x.shape
    rows = variable.as_variable(W)[index]  # (B, K, D)
    scores = matmul.matmul(rows, reshape.reshape(x, (batch, n_unit, 1)))
    return reshape.reshape(scores, index.shape)


def negative_sampling(
    x: Any,
    t: Any,
    W: Any,
    sampler: Callable[[tuple[int, int]], Any],
    sample_size: int,
    reduce: str = "sum",
    **kwargs: Any,
) -> Any:
    """Negative sampling loss (Mikolov et al., 2013).

    For each example the loss is
    :math:`-\\log \\sigma(x^\\top w_t) - \\sum_{s \\in S} \\log \\sigma(-x^\\top w_s)`, where
    :math:`w_i` is row ``i`` of ``W`` and :math:`S` are ``sample_size`` words drawn by
    ``sampler``. Examples labelled ``-1`` are ignored (zero loss and gradient).

    Args:
        x: Input vectors of shape ``(B, D)``, floating dtype.
        t: Signed integer target words of shape ``(B,)``, in ``[0, V)`` or ``-1``.
        W: Output word vectors of shape ``(V, D)``, the dtype of ``x``.
        sampler: A callable that takes a shape and returns an integer array of that shape
            of words drawn from the noise distribution (e.g. the ``sample`` method of
            :class:`~chainer.utils.WalkerAlias`). It is called with
            ``(B, sample_size + 1)``; column 0 is then replaced by ``t``.
        sample_size: Number of negative samples per example.
        reduce: ``'sum'`` (a scalar) or ``'no'`` (shape ``(B,)``).
        return_samples (keyword only): Also return the ``(B, sample_size + 1)`` array of
            words used, ``t`` in column 0.

    Returns:
        The loss variable, or ``(loss, samples)`` with ``return_samples=True``.

    Example:
        >>> x = np.zeros((2, 3), 'f'); W = np.zeros((5, 3), 'f'); t = np.array([0, 1], 'i')
        >>> sampler = lambda shape: np.full(shape, 4, 'i')
        >>> float(F.negative_sampling(x, t, W, sampler, 2).array)  # 2 * 3 * log 2
        4.158883...
    """
    return_samples = kwargs.pop("return_samples", False)
    if kwargs:
        raise TypeError(f"chainer.functions.{_WHERE}: unexpected keyword argument(s) {', '.join(sorted(kwargs))}")
    _common.check_reduce(reduce, ("sum", "no"), _WHERE)
    if not callable(sampler):
        raise TypeError(f"chainer.functions.{_WHERE}: sampler must be callable, got {type(sampler).__name__}")
    if isinstance(sample_size, bool) or not isinstance(sample_size, (int, numpy.integer)) or sample_size < 0:
        raise ValueError(f"chainer.functions.{_WHERE}: sample_size must be a non-negative int, got {sample_size!r}")
    _check_embedding_inputs(x, t, W, "NegativeSampling")
    samples = _draw_samples(variable.as_array(t), variable.as_array(W).shape[0], sampler, sample_size)
    loss = _loss(x, t, W, samples, reduce)
    return (loss, samples) if return_samples else loss


def _draw_samples(t: Any, n_vocab: int, sampler: Callable[[tuple[int, int]], Any], sample_size: int) -> Any:
    """``sampler``'s words for every example, checked, with ``t`` in column 0."""
    xp = backend.get_array_module(t)
    shape = (t.shape[0], int(sample_size) + 1)
    samples = sampler(shape)
    samples = xp.array(backend.get_device_from_array(t).send(samples), copy=True)
    if samples.shape != shape or samples.dtype.kind not in "iu":
        raise ValueError(
            f"chainer.functions.{_WHERE}: sampler must return an integer array of shape {shape}, "
            f"got {samples.dtype} of shape {samples.shape}"
        )
    _common.check_labels(t, n_vocab, _WHERE, ignore_label=_IGNORE)
    _common.check_labels(samples[:, 1:], n_vocab, _WHERE, name="the samples")
    samples[:, 0] = t
    return samples


def _loss(x: Any, t: Any, W: Any, samples: Any, reduce: str) -> variable.Variable:
    """The loss with the words ``samples`` (``t`` in column 0), differentiable in x and W."""
    from chainer.functions.activation import softplus
    from chainer.functions.math import sum as sum_module

    t_array = variable.as_array(t)
    xp = backend.get_array_module(t_array)
    valid = t_array != _IGNORE
    index = samples.copy()
    index[:, 0] = xp.where(valid, t_array, 0)
    x = variable.as_variable(x)
    sign = xp.ones(samples.shape, x.dtype)
    sign[:, 0] = -1  # -log sigmoid(s) = softplus(-s) for the target, softplus(s) for samples
    losses = softplus.softplus(_scores(x, W, index) * sign)
    loss = sum_module.sum(losses, axis=1) * valid.astype(x.dtype)
    return sum_module.sum(loss) if reduce == "sum" else loss


class NegativeSamplingFunction(_composite.CompositeNode):
    """The negative sampling loss of ``(x, t, W)`` as a node; see :func:`negative_sampling`.

    Each forward pass draws the words with ``sampler`` and keeps them in ``samples``
    (``t`` in column 0), which the backward pass uses.

    Args:
        sampler: Callable drawing word ids of a given shape.
        sample_size: Number of negative words per example.
        reduce: ``'sum'`` or ``'no'``.
    """

    def __init__(self, sampler: Callable[[tuple[int, int]], Any], sample_size: int, reduce: str = "sum") -> None:
        _common.check_reduce(reduce, ("sum", "no"), _WHERE)
        self.sampler = sampler
        self.sample_size = sample_size
        self.reduce = reduce
        self.samples: Any = None

    def check_type_forward(self, in_types: Any) -> None:
        _check_embedding_types(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, t, W = inputs
        self.samples = _draw_samples(t, W.shape[0], self.sampler, self.sample_size)
        return super().forward(inputs)

    def composite(self, x: variable.Variable, t: variable.Variable, W: variable.Variable) -> variable.Variable:
        return _loss(x, t, W, self.samples, self.reduce)


class NegativeSamplingFunctionGrad(_composite.CompositeNode):
    """The gradients ``(gx, gW)`` of a :class:`NegativeSamplingFunction` node after its
    forward pass (with its samples), from ``(x, t, W, gloss)``; differentiable again."""

    def __init__(self, func: NegativeSamplingFunction) -> None:
        if func.samples is None:
            raise RuntimeError(f"{type(self).__name__}: the loss node has not run its forward pass yet")
        self.samples = func.samples
        self.reduce = func.reduce

    def composite(self, x: Any, t: Any, W: Any, gloss: Any) -> tuple[variable.Variable, ...]:
        return _composite.gradients(lambda x, W: _loss(x, t, W, self.samples, self.reduce), (x, W), (gloss,))


__all__ = ["negative_sampling"]
