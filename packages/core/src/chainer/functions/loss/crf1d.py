"""Linear-chain conditional random field: negative log-likelihood and Viterbi decoding.

Sequences are given time-major, as lists of per-step arrays whose batch size may shrink
over time (sequences sorted by decreasing length, as
:func:`~chainer.functions.transpose_sequence` produces).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

from chainer import backend, variable
from chainer.functions.loss import _common
from chainer.utils import type_check


def _check_inputs(cost: Any, xs: Any, ys: Any, where: str, label: str) -> None:
    if not isinstance(xs, (list, tuple)) or len(xs) == 0:
        raise TypeError(f"chainer.functions.{where}: xs must be a non-empty list of variables, got {type(xs).__name__}")
    if ys is not None:
        if not isinstance(ys, (list, tuple)) or len(ys) != len(xs):
            raise ValueError(
                f"chainer.functions.{where}: ys must be a list of the length of xs ({len(xs)}), got "
                f"{len(ys) if isinstance(ys, (list, tuple)) else type(ys).__name__}"
            )
    n_steps = len(xs)

    def check(in_types: Any) -> None:
        names = ("cost",) + tuple(f"xs[{i}]" for i in range(n_steps))
        if ys is not None:
            names += tuple(f"ys[{i}]" for i in range(n_steps))
        type_check._argname(in_types, names)
        cost_type = in_types[0]
        type_check.expect(cost_type.dtype.kind == "f", cost_type.ndim == 2, cost_type.shape[0] == cost_type.shape[1])
        x_types = in_types[1 : 1 + n_steps]
        for i, x_type in enumerate(x_types):
            type_check.expect(x_type.dtype == cost_type.dtype, x_type.ndim == 2, x_type.shape[1] == cost_type.shape[0])
            if i:
                # Sequences are sorted by decreasing length: the batch never grows.
                type_check.expect(x_type.shape[0] <= x_types[i - 1].shape[0])
        if ys is not None:
            for x_type, y_type in zip(x_types, in_types[1 + n_steps :]):
                type_check.expect(y_type.dtype.kind == "i", y_type.ndim == 1, y_type.shape[0] == x_type.shape[0])

    arrays = (cost,) + tuple(xs) + (tuple(ys) if ys is not None else ())
    _common.check_arguments(check, arrays, label)


def _path_score(cost: variable.Variable, xs: Sequence[Any], ys: Sequence[Any]) -> list[variable.Variable]:
    """Score of the label paths ``ys``, as segments of rows (see :func:`_segments`)."""
    xp = backend.get_array_module(cost.array)
    pieces = []
    for i, (x, y) in enumerate(zip(xs, ys)):
        rows = xp.arange(y.shape[0])
        piece = variable.as_variable(x)[rows, y]
        if i:
            piece = piece + cost[ys[i - 1][: y.shape[0]], y]
        pieces.append(piece)
    return _segments(pieces)


def _segments(steps: Sequence[variable.Variable]) -> list[variable.Variable]:
    """Sum per-step values of shrinking batch size per row: returns the row segments in
    row order (the rows still running at the last step first)."""
    finished = []
    total = steps[0]
    for step in steps[1:]:
        n = step.shape[0]
        if total.shape[0] > n:
            finished.append(total[n:])
            total = total[:n]
        total = total + step
    return [total] + finished[::-1]


def crf1d(cost: Any, xs: Sequence[Any], ys: Sequence[Any], reduce: str = "mean") -> variable.Variable:
    """Negative log-likelihood of a linear-chain conditional random field.

    The score of a label path :math:`y_1, \\dots, y_L` is
    :math:`\\sum_i x_{i, y_i} + \\sum_{i > 1} c_{y_{i-1}, y_i}`, and its probability is
    its exponential normalised over all :math:`K^L` paths. The normaliser is computed by
    the forward algorithm in log space. The loss is built from differentiable
    functions, so higher-order gradients work.

    Args:
        cost: Transition scores :math:`c` of shape ``(K, K)``; ``cost[i, j]`` is the
            score of label ``j`` following label ``i``.
        xs: List of ``L`` variables of shape ``(B_i, K)``: the unary scores of each time
            step. ``B_i`` may decrease over time (sequences sorted by decreasing length;
            row ``b`` of every step belongs to the same sequence).
        ys: List of ``L`` signed integer arrays of shape ``(B_i,)``: the true labels.
        reduce: ``'mean'`` (the sum over sequences divided by ``B_0``) or ``'no'``
            (shape ``(B_0,)``).

    Returns:
        The loss variable.

    Example:
        >>> cost = np.zeros((2, 2), 'f'); xs = [np.zeros((1, 2), 'f')] * 3
        >>> ys = [np.zeros(1, 'i')] * 3
        >>> float(F.crf1d(cost, xs, ys).array)  # log 8: eight equally likely paths
        2.079441...
    """
    from chainer.functions.array import reshape
    from chainer.functions.math import logsumexp
    from chainer.functions.math import sum as sum_module

    _common.check_reduce(reduce, ("mean", "no"), "crf1d")
    _check_inputs(cost, xs, ys, "crf1d", "CRF1d")
    cost = variable.as_variable(cost)
    ys = [variable.as_array(y) for y in ys]
    n_label = cost.shape[0]
    xp = backend.get_array_module(cost.array)
    _common.check_labels(xp.concatenate(ys), n_label, "crf1d", name="ys")

    transition = reshape.reshape(cost, (1, n_label, n_label))
    alpha = variable.as_variable(xs[0])
    log_z_finished = []
    for x in xs[1:]:
        n = x.shape[0]
        if alpha.shape[0] > n:
            log_z_finished.append(logsumexp.logsumexp(alpha[n:], axis=1))
            alpha = alpha[:n]
        alpha = logsumexp.logsumexp(reshape.reshape(alpha, (n, n_label, 1)) + transition, axis=1) + x
    log_z = [logsumexp.logsumexp(alpha, axis=1)] + log_z_finished[::-1]
    losses = [lz - score for lz, score in zip(log_z, _path_score(cost, xs, ys))]
    if reduce == "mean":
        total = sum_module.sum(losses[0])
        for segment in losses[1:]:
            total = total + sum_module.sum(segment)
        return total * (1.0 / max(xs[0].shape[0], 1))
    return _common.concat_rows(losses)


def argmax_crf1d(cost: Any, xs: Sequence[Any]) -> tuple[variable.Variable, list[Any]]:
    """The most probable label path of a linear-chain CRF (Viterbi decoding).

    Args:
        cost: Transition scores of shape ``(K, K)`` (see :func:`crf1d`).
        xs: List of ``L`` variables of shape ``(B_i, K)`` with non-increasing ``B_i``.

    Returns:
        A tuple ``(score, path)``: ``score`` is a variable of shape ``(B_0,)`` holding the
        score of the best path of each sequence (differentiable with respect to ``cost``
        and ``xs``), and ``path`` is a list of ``L`` int32 arrays of shape ``(B_i,)``,
        the best labels at each time step.

    Example:
        >>> cost = np.array([[0., -5.], [-5., 0.]], 'f')  # switching labels is costly
        >>> xs = [np.array([[1., 0.]], 'f'), np.array([[0., 0.5]], 'f')]
        >>> score, path = F.argmax_crf1d(cost, xs)
        >>> [p.tolist() for p in path], score.array.tolist()
        ([[0], [0]], [1.0])
    """
    _check_inputs(cost, xs, None, "argmax_crf1d", "ArgmaxCRF1d")
    cost = variable.as_variable(cost)
    c = cost.array
    xp = backend.get_array_module(c)
    alpha = variable.as_array(xs[0])
    pointers = []
    ends: list[Any] = []  # ends[i]: best last labels of the rows whose sequence ends at step i
    for x in xs[1:]:
        x = variable.as_array(x)
        n = x.shape[0]
        ends.append(alpha[n:].argmax(axis=1))
        alpha = alpha[:n]
        scores = alpha[:, :, None] + c[None]
        pointers.append(scores.argmax(axis=1))
        alpha = scores.max(axis=1) + x
    current = alpha.argmax(axis=1)
    path = [current]
    for i in range(len(xs) - 1, 0, -1):
        current = pointers[i - 1][xp.arange(current.shape[0]), current]
        current = xp.concatenate([current, ends[i - 1]])
        path.append(current)
    path = [p.astype(numpy.int32) for p in path[::-1]]
    score = _common.concat_rows(_path_score(cost, xs, path))
    return score, path


__all__ = ["argmax_crf1d", "crf1d"]
