"""Connectionist temporal classification (CTC) loss."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

from chainer import backend, function_node, utils, variable
from chainer.functions.loss import _common
from chainer.utils import type_check

_WHERE = "connectionist_temporal_classification"


def _logaddexp3(xp: Any, a: Any, b: Any, c: Any) -> Any:
    return xp.logaddexp(xp.logaddexp(a, b), c)


class ConnectionistTemporalClassification(function_node.FunctionNode):
    """CTC loss by the forward-backward algorithm in log space.

    Inputs are ``(input_length, label_length, t, x_0, ..., x_{T-1})``. The recursions
    run over time only; every step is vectorised over the batch and the states of the
    extended label sequence (labels interleaved with blanks, ``S = 2L + 1`` states).
    """

    def __init__(self, blank_symbol: int, reduce: str) -> None:
        self.blank_symbol = blank_symbol
        self.reduce = reduce

    @property
    def label(self) -> str:
        return "ConnectionistTemporalClassification"

    def check_type_forward(self, in_types: Any) -> None:
        n_in = type_check.eval(in_types.size())
        if n_in < 4:
            raise type_check.InvalidType(
                "in_types.size() >= 4 (input_length, label_length, t and at least one x)", f"in_types.size() == {n_in}"
            )
        names = ("input_length", "label_length", "t") + tuple(f"x[{i}]" for i in range(n_in - 3))
        type_check._argname(in_types, names)
        input_length, label_length, t, x0 = in_types[:4]
        type_check.expect(
            x0.dtype.kind == "f",
            x0.ndim == 2,
            t.dtype.kind == "i",
            t.ndim == 2,
            x0.shape[0] == t.shape[0],
            input_length.dtype.kind == "i",
            input_length.ndim == 1,
            input_length.shape[0] == t.shape[0],
            label_length.dtype.kind == "i",
            label_length.ndim == 1,
            label_length.shape[0] == t.shape[0],
        )
        for x in in_types[4:]:
            type_check.expect(x.dtype == x0.dtype, x.shape == x0.shape)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        input_length, label_length, t = inputs[:3]
        xs = inputs[3:]
        # Kept only to connect the gradient to x in the graph, so that differentiating it
        # again reaches _CTCGrad.backward and its error instead of a silent zero.
        self.retain_inputs(tuple(range(3, len(inputs))))
        xp = backend.get_array_module(xs[0])
        n_time = len(xs)
        batch, n_label = xs[0].shape
        max_label = t.shape[1]
        blank = self.blank_symbol
        if blank >= n_label:
            raise ValueError(
                f"chainer.functions.{_WHERE}: blank_symbol must be less than the number of labels "
                f"({n_label}), got {blank}"
            )
        self._check_lengths(input_length, n_time, "input_length", "len(x)")
        self._check_lengths(label_length, max_label, "label_length", "t.shape[1]")
        # Labels past a sequence's label_length are padding: replace them by blanks.
        in_label = xp.arange(max_label)[None, :] < label_length[:, None]
        t = xp.where(in_label, t, blank)
        _common.check_labels(t, n_label, _WHERE)

        dtype = _common.compute_dtype(xs[0].dtype)
        log_y = _common.log_softmax_array(xp.stack(xs).astype(dtype, copy=False), axis=2)  # (T, B, V)
        n_state = 2 * max_label + 1
        path = xp.full((batch, n_state), blank, t.dtype)
        path[:, 1::2] = t
        path_length = 2 * label_length + 1
        # skip[b, s]: the transition s - 2 -> s is allowed (s is a label differing from s - 2).
        skip = xp.zeros((batch, n_state), bool)
        skip[:, 2:] = (path[:, 2:] != blank) & (path[:, 2:] != path[:, :-2])
        log_p_path = log_y[:, xp.arange(batch)[:, None], path]  # (T, B, S)

        neg_inf = dtype(-numpy.inf)
        state_valid = xp.arange(n_state)[None, :] < path_length[:, None]
        alpha = xp.empty((n_time, batch, n_state), dtype)
        first = xp.full((batch, n_state), neg_inf, dtype)
        first[:, :2] = log_p_path[0, :, :2]
        alpha[0] = xp.where(state_valid, first, neg_inf)
        for step in range(1, n_time):
            prev = alpha[step - 1]
            acc = prev.copy()
            acc[:, 1:] = xp.logaddexp(acc[:, 1:], prev[:, :-1])
            acc[:, 2:] = xp.logaddexp(acc[:, 2:], xp.where(skip[:, 2:], prev[:, :-2], neg_inf))
            alpha[step] = acc + log_p_path[step]

        rows = xp.arange(batch)
        last = alpha[xp.maximum(input_length - 1, 0), rows]  # (B, S)
        end = last[rows, path_length - 1]
        before_end = xp.where(path_length >= 2, last[rows, xp.maximum(path_length - 2, 0)], neg_inf)
        log_p = xp.logaddexp(end, before_end)
        # An empty input emits exactly the empty label sequence.
        log_p = xp.where(input_length == 0, xp.where(label_length == 0, dtype(0), neg_inf), log_p)

        self._saved = (log_y, alpha, log_p_path, path, skip, path_length, input_length, log_p)
        loss = -log_p
        if self.reduce == "mean":
            loss = loss.mean() if batch else xp.zeros((), dtype)
        return (utils.force_array(loss, xs[0].dtype),)

    @staticmethod
    def _check_lengths(lengths: Any, limit: int, name: str, limit_name: str) -> None:
        if lengths.size == 0:
            return
        low, high = int(lengths.min()), int(lengths.max())
        if low < 0 or high > limit:
            raise ValueError(
                f"chainer.functions.{_WHERE}: every {name} must be in [0, {limit_name}] = [0, {limit}]; "
                f"found {low if low < 0 else high}"
            )

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gxs = _CTCGrad(self).apply((grad_outputs[0],) + self.get_retained_inputs())
        return (None, None, None) + tuple(gxs)


class _CTCGrad(function_node.FunctionNode):
    """Gradients of CTC with respect to the unnormalised inputs: ``softmax(x)`` minus the
    posterior occupation of each label, from the backward (beta) recursion."""

    def __init__(self, func: ConnectionistTemporalClassification) -> None:
        self._saved = func._saved
        self._reduce = func.reduce

    @property
    def label(self) -> str:
        return "ConnectionistTemporalClassificationGrad"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy = inputs[0]
        log_y, alpha, log_p_path, path, skip, path_length, input_length, log_p = self._saved
        xp = backend.get_array_module(log_y)
        n_time, batch, n_label = log_y.shape
        n_state = path.shape[1]
        dtype = log_y.dtype.type
        neg_inf = dtype(-numpy.inf)

        rows = xp.arange(batch)
        final = xp.full((batch, n_state), neg_inf, dtype)
        final[rows, path_length - 1] = 0
        has_two_ends = path_length >= 2
        final[rows[has_two_ends], path_length[has_two_ends] - 2] = 0
        # beta[t, b, s]: log-probability of emitting frames t+1 .. T_b-1 from state s at t.
        beta = xp.empty_like(alpha)
        recursion = xp.full((batch, n_state), neg_inf, dtype)
        for step in range(n_time - 1, -1, -1):
            if step < n_time - 1:
                ahead = beta[step + 1] + log_p_path[step + 1]
                recursion = ahead.copy()
                recursion[:, :-1] = xp.logaddexp(recursion[:, :-1], ahead[:, 1:])
                recursion[:, :-2] = xp.logaddexp(recursion[:, :-2], xp.where(skip[:, 2:], ahead[:, 2:], neg_inf))
            is_last = (input_length - 1 == step)[:, None]
            is_past = (input_length - 1 < step)[:, None]
            beta[step] = xp.where(is_last, final, xp.where(is_past, neg_inf, recursion))

        feasible = xp.isfinite(log_p)
        occupation = xp.exp(alpha + beta - xp.where(feasible, log_p, 0)[None, :, None])  # (T, B, S)
        # Sum the occupation of the states that emit each label: one bincount over all (t, b, s).
        flat = (xp.arange(n_time)[:, None, None] * batch + rows[None, :, None]) * n_label + path[None]
        label_occupation = xp.bincount(
            flat.ravel(), weights=occupation.ravel(), minlength=n_time * batch * n_label
        ).reshape(n_time, batch, n_label)
        in_time = (xp.arange(n_time)[:, None] < input_length[None, :])[:, :, None]
        grad = xp.exp(log_y) * in_time - label_occupation.astype(dtype, copy=False)
        scale = gy.astype(dtype) * dtype(1.0 / max(batch, 1)) if self._reduce == "mean" else gy.astype(dtype)
        # An impossible alignment has an infinite loss and no useful gradient: zero it.
        grad *= (scale * feasible)[None, :, None]
        out_dtype = inputs[1].dtype
        return tuple(utils.force_array(g, out_dtype) for g in grad)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        raise NotImplementedError(
            "chainer.functions.connectionist_temporal_classification supports first-order gradients only "
            "(as in Chainer 7.8.1); its gradient cannot be differentiated again"
        )


def connectionist_temporal_classification(
    x: Sequence[Any],
    t: Any,
    blank_symbol: int,
    input_length: Any = None,
    label_length: Any = None,
    reduce: str = "mean",
) -> variable.Variable:
    """Connectionist Temporal Classification loss (Graves et al., 2006).

    The negative log-probability of the label sequence ``t`` summed over all alignments
    of the frames ``x``: an alignment emits one symbol per frame, and collapsing repeats
    and then removing blanks must give the labels. The softmax of ``x[i]`` over its
    second axis gives the emission probabilities of frame ``i``. The sum over
    alignments is the forward-backward algorithm in log space, vectorised over the batch.

    A sequence whose labels cannot fit its frames (too few frames for the labels and the
    blanks needed between repeats) has an infinite loss and gets zero gradient.

    Only first-order gradients are supported, as in Chainer 7.8.1: differentiating the
    gradient again raises NotImplementedError.

    Args:
        x: A list (or tuple) of ``T`` variables of shape ``(B, V)``: the unnormalised
            log-probabilities of the ``V`` symbols (blank included) at each time step.
        t: Signed integer labels of shape ``(B, L)``; each label (within its sequence's
            ``label_length``) is in ``[0, V)``.
        blank_symbol: Index of the blank symbol, in ``[0, V)``.
        input_length: Optional signed integer array ``(B,)``: the number of valid frames of
            each sequence (default ``T`` for all). Frames past it get zero gradient.
        label_length: Optional signed integer array ``(B,)``: the number of valid labels of
            each sequence (default ``L`` for all).
        reduce: ``'mean'`` (the mean over the batch) or ``'no'`` (shape ``(B,)``).

    Returns:
        The loss variable, of the dtype of ``x``.

    Example:
        >>> x = [np.zeros((1, 2), 'f')] * 2  # two frames, uniform over {blank, a}
        >>> t = np.array([[1]], 'i')  # the label "a": alignments "a-", "-a", "aa"
        >>> float(F.connectionist_temporal_classification(x, t, 0).array)  # -log(3/4)
        0.287682...
    """
    _common.check_reduce(reduce, ("mean", "no"), _WHERE)
    if not isinstance(x, (list, tuple)) or len(x) == 0:
        raise TypeError(f"chainer.functions.{_WHERE}: x must be a non-empty list of variables, got {type(x).__name__}")
    if isinstance(blank_symbol, bool) or not isinstance(blank_symbol, (int, numpy.integer)) or blank_symbol < 0:
        raise TypeError(f"chainer.functions.{_WHERE}: blank_symbol must be a non-negative int, got {blank_symbol!r}")
    t_array = variable.as_array(t)
    xp = backend.get_array_module(t_array)
    batch = t_array.shape[0] if t_array.ndim else 0
    if input_length is None:
        input_length = xp.full(batch, len(x), numpy.int32)
    if label_length is None:
        label_length = xp.full(batch, t_array.shape[1] if t_array.ndim == 2 else 0, numpy.int32)
    inputs = (variable.as_array(input_length), variable.as_array(label_length), t_array) + tuple(x)
    return ConnectionistTemporalClassification(int(blank_symbol), reduce).apply(inputs)[0]


__all__ = ["connectionist_temporal_classification"]
