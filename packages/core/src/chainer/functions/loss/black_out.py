"""BlackOut loss."""

from __future__ import annotations

from typing import Any

from chainer import backend, variable
from chainer.functions.loss import _common, negative_sampling
from chainer.utils import type_check

_WHERE = "black_out"


def black_out(x: Any, t: Any, W: Any, samples: Any, reduce: str = "mean") -> variable.Variable:
    """BlackOut loss (Ji et al., 2016), a sampled approximation of softmax cross entropy.

    With :math:`p(y) = \\exp(w_y^\\top x) / \\sum_{s \\in \\{t\\} \\cup S} \\exp(w_s^\\top x)`,
    the softmax restricted to the target and the ``K`` negative samples :math:`S`, the
    loss of an example is :math:`-\\log p(t) - \\sum_{s \\in S} \\log(1 - p(s))`.

    Args:
        x: Input vectors of shape ``(B, D)``, floating dtype.
        t: Signed integer target words of shape ``(B,)``, in ``[0, V)``.
        W: Output word vectors of shape ``(V, D)``, the dtype of ``x``.
        samples: Signed integer negative samples of shape ``(B, K)``, in ``[0, V)``.
        reduce: ``'mean'`` (the mean over the batch) or ``'no'`` (shape ``(B,)``).

    Returns:
        The loss variable.

    Example:
        >>> x = np.zeros((1, 2), 'f'); W = np.zeros((3, 2), 'f')
        >>> t = np.array([0], 'i'); samples = np.array([[1, 2]], 'i')
        >>> float(F.black_out(x, t, W, samples).array)  # -log(1/3) - 2 log(2/3)
        1.909542...
    """
    from chainer.functions.math import exponential, logsumexp
    from chainer.functions.math import sum as sum_module

    _common.check_reduce(reduce, ("mean", "no"), _WHERE)
    negative_sampling._check_embedding_inputs(x, t, W, "BlackOut")

    def check(in_types: Any) -> None:
        type_check._argname(in_types, ("t", "samples"))
        t_type, samples_type = in_types
        type_check.expect(
            samples_type.dtype.kind == "i", samples_type.ndim == 2, samples_type.shape[0] == t_type.shape[0]
        )

    _common.check_arguments(check, (t, samples), "BlackOut")
    t_array = variable.as_array(t)
    samples_array = variable.as_array(samples)
    n_vocab = variable.as_array(W).shape[0]
    _common.check_labels(t_array, n_vocab, _WHERE)
    _common.check_labels(samples_array, n_vocab, _WHERE, name="samples")
    xp = backend.get_array_module(t_array)
    index = xp.concatenate([t_array[:, None].astype(samples_array.dtype), samples_array], axis=1)

    scores = negative_sampling._scores(x, W, index)  # (B, 1 + K): target first
    log_z = logsumexp.logsumexp(scores, axis=1)
    log_p = scores - _expand_rows(log_z, scores.shape)
    log_p_target = log_p[:, 0]
    log_not_sample = exponential.log(1.0 - exponential.exp(log_p[:, 1:]))
    loss = -(log_p_target + sum_module.sum(log_not_sample, axis=1))
    if reduce == "mean":
        return sum_module.sum(loss) * (1.0 / max(loss.shape[0], 1))
    return loss


def _expand_rows(v: variable.Variable, shape: tuple[int, ...]) -> variable.Variable:
    from chainer.functions.array import broadcast, reshape

    return broadcast.broadcast_to(reshape.reshape(v, (shape[0], 1)), shape)


__all__ = ["black_out"]
