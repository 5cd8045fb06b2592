"""Stacked uni- and bidirectional LSTMs over variable-length sequences."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer.functions.rnn import _lstm_recurrence, _n_step, n_step_rnn
from chainer.utils import argument


def _interleaved_weights(w: Sequence[Any], b: Sequence[Any]) -> tuple[Any, Any, Any]:
    """``(W_in, W_h, bias)`` of one layer and direction, their rows in the gate layout of F.lstm."""
    from chainer.functions.activation import _gates

    # Parameter k of the documented layout feeds gate i (0, 4), f (1, 5), a (2, 6) or o (3, 7);
    # F.lstm takes the gates interleaved per unit in the order a, i, f, o.
    w_in = _gates.interleave_gates((w[2], w[0], w[1], w[3]), axis=0)
    w_h = _gates.interleave_gates((w[6], w[4], w[5], w[7]), axis=0)
    bias = _gates.interleave_gates((b[2], b[0], b[1], b[3]), axis=0) + _gates.interleave_gates(
        (b[6], b[4], b[5], b[7]), axis=0
    )
    return w_in, w_h, bias


def _build_lstm(w: Sequence[Any], b: Sequence[Any]) -> tuple[Any, Any, _n_step.Step]:
    w_in, w_h, bias = _interleaved_weights(w, b)
    return w_in, bias, _lstm_recurrence.lstm_step(w_h)


def _build_lstm_recurrence(w: Sequence[Any], b: Sequence[Any]) -> tuple[Any, Any, _n_step.Recurrence]:
    w_in, w_h, bias = _interleaved_weights(w, b)

    def recurrence(projected: Any, h0: Any, c0: Any, sizes: Sequence[int], reverse: bool) -> tuple[Any, Any, Any]:
        return _lstm_recurrence.lstm_recurrence(projected, h0, c0, w_h, sizes, reverse)

    return w_in, bias, recurrence


_LSTM = _n_step.CellSpec(
    "lstm", n_weights=8, n_input_weights=4, has_cell=True, build=_build_lstm, build_recurrence=_build_lstm_recurrence
)


def n_step_lstm(n_layers: int, dropout_ratio: float, hx: Any, cx: Any, ws: Any, bs: Any, xs: Any, **kwargs: Any) -> Any:
    """Stacked unidirectional LSTM over a batch of variable-length sequences.

    ``n_step_lstm(n_layers, dropout_ratio, hx, cx, ws, bs, xs)``

    Each layer ``l`` runs, for every sequence and time step,

    .. math::
        i_t &= \\sigma(W_0 x_t + W_4 h_{t-1} + b_0 + b_4), \\\\
        f_t &= \\sigma(W_1 x_t + W_5 h_{t-1} + b_1 + b_5), \\\\
        a_t &= \\tanh(W_2 x_t + W_6 h_{t-1} + b_2 + b_6), \\\\
        o_t &= \\sigma(W_3 x_t + W_7 h_{t-1} + b_3 + b_7), \\\\
        c_t &= f_t c_{t-1} + i_t a_t, \\qquad h_t = o_t \\tanh(c_t),

    with ``W_j = ws[l][j]`` and ``b_j = bs[l][j]`` (the gate order i, f, a, o of cuDNN,
    which Chainer's weights follow). The input of layer 0 is ``xs``; that of layer
    ``l > 0`` is the output of layer ``l - 1`` after dropout (training mode only).

    Args:
        n_layers: Number of layers ``S``.
        dropout_ratio: Dropout ratio of the inputs of layers ``1 .. S - 1``.
        hx: Initial hidden states, shape ``(S, B, N)``.
        cx: Initial cell states, shape ``(S, B, N)``.
        ws: ``S`` lists of 8 weight matrices: ``ws[l][0..3]`` of shape ``(N, I)``
            (``I`` the input size for layer 0, ``N`` above) and ``ws[l][4..7]`` of shape ``(N, N)``.
        bs: ``S`` lists of 8 bias vectors of shape ``(N,)``.
        xs: Time-major inputs: ``xs[t]`` of shape ``(B_t, I)`` holds time step ``t`` of
            the ``B_t`` sequences longer than ``t``, so ``B_0 >= B_1 >= ...``; this is what
            :func:`~chainer.functions.transpose_sequence` makes of sequences sorted by
            decreasing length. ``B`` is ``B_0``; rows of ``hx`` and ``cx`` past ``B_0``
            (sequences of length zero) are passed to ``hy`` and ``cy`` unchanged.

    Returns:
        ``(hy, cy, ys)``: the final hidden and cell states of every layer, shape
        ``(S, B, N)`` (a sequence's final state is the one after its last element), and
        the list of the last layer's outputs, time-major like ``xs``: ``ys[t]`` of
        shape ``(B_t, N)``.

    Example:
        >>> S, N, I = 2, 4, 5
        >>> seqs = [np.ones((3, I), 'f'), np.ones((1, I), 'f')]  # sorted by decreasing length
        >>> xs = F.transpose_sequence(seqs)  # time-major
        >>> [x.shape for x in xs]
        [(2, 5), (1, 5), (1, 5)]
        >>> hx = np.zeros((S, 2, N), 'f'); cx = np.zeros((S, 2, N), 'f')
        >>> ws = [[np.full((N, I if l == 0 else N) if j < 4 else (N, N), 0.1, 'f') for j in range(8)] for l in range(S)]
        >>> bs = [[np.zeros(N, 'f') for _ in range(8)] for _ in range(S)]
        >>> hy, cy, ys = F.n_step_lstm(S, 0.0, hx, cx, ws, bs, xs)
        >>> hy.shape, [y.shape for y in ys]
        ((2, 2, 4), [(2, 4), (1, 4), (1, 4)])
        >>> [y.shape for y in F.transpose_sequence(ys)]  # back to one output per sequence
        [(3, 4), (1, 4)]
    """
    _n_step.check_kwargs(kwargs)
    argument.assert_kwargs_empty(kwargs)
    return n_step_lstm_base(n_layers, dropout_ratio, hx, cx, ws, bs, xs, False)


def n_step_bilstm(
    n_layers: int, dropout_ratio: float, hx: Any, cx: Any, ws: Any, bs: Any, xs: Any, **kwargs: Any
) -> Any:
    """Stacked bidirectional LSTM over a batch of variable-length sequences.

    ``n_step_bilstm(n_layers, dropout_ratio, hx, cx, ws, bs, xs)``

    Each layer has a forward and a backward LSTM (the equations of
    :func:`n_step_lstm`); parameters and states of layer ``l`` are at index ``2 l``
    (forward) and ``2 l + 1`` (backward in time). The output of a layer is the
    concatenation of both directions, so ``ws[k][0..3]`` of layers above the first
    have shape ``(N, 2N)``.

    Args:
        n_layers: Number of layers ``S``.
        dropout_ratio: Dropout ratio of the inputs of layers ``1 .. S - 1``.
        hx: Initial hidden states, shape ``(2S, B, N)``.
        cx: Initial cell states, shape ``(2S, B, N)``.
        ws: ``2S`` lists of 8 weight matrices: ``ws[k][0..3]`` of shape ``(N, I)`` for
            ``k < 2`` and ``(N, 2N)`` above, ``ws[k][4..7]`` of shape ``(N, N)``.
        bs: ``2S`` lists of 8 bias vectors of shape ``(N,)``.
        xs: Time-major inputs, ``xs[t]`` of shape ``(B_t, I)`` with ``B_0 >= B_1 >= ...``,
            as in :func:`n_step_lstm`.

    Returns:
        ``(hy, cy, ys)``: final states of shape ``(2S, B, N)`` (for the backward direction
        the state after the first element) and time-major outputs, ``ys[t]`` of shape
        ``(B_t, 2N)`` (forward direction first).

    Example:
        >>> S, N, I = 1, 2, 3
        >>> xs = F.transpose_sequence([np.ones((2, I), 'f'), np.ones((1, I), 'f')])
        >>> hx = np.zeros((2 * S, 2, N), 'f'); cx = np.zeros((2 * S, 2, N), 'f')
        >>> ws = [[np.full((N, I) if j < 4 else (N, N), 0.1, 'f') for j in range(8)] for _ in range(2 * S)]
        >>> bs = [[np.zeros(N, 'f') for _ in range(8)] for _ in range(2 * S)]
        >>> hy, cy, ys = F.n_step_bilstm(S, 0.0, hx, cx, ws, bs, xs)
        >>> hy.shape, [y.shape for y in ys]
        ((2, 2, 2), [(2, 4), (1, 4)])
    """
    _n_step.check_kwargs(kwargs)
    argument.assert_kwargs_empty(kwargs)
    return n_step_lstm_base(n_layers, dropout_ratio, hx, cx, ws, bs, xs, True)


def n_step_lstm_base(
    n_layers: int,
    dropout_ratio: float,
    hx: Any,
    cx: Any,
    ws: Any,
    bs: Any,
    xs: Any,
    use_bi_direction: bool,
    **kwargs: Any,
) -> Any:
    """:func:`n_step_lstm` (``use_bi_direction=False``) or :func:`n_step_bilstm` (``True``).

    Returns:
        ``(hy, cy, ys)``, as those functions do.
    """
    where = "n_step_bilstm" if use_bi_direction else "n_step_lstm"
    _n_step.check_kwargs(kwargs)
    argument.assert_kwargs_empty(kwargs)
    return _n_step.n_step_rnn_base(where, _LSTM, n_layers, dropout_ratio, hx, cx, ws, bs, xs, use_bi_direction)


def _lstm(x: Any, h: Any, c: Any, w: Sequence[Any], b: Sequence[Any]) -> tuple[Any, Any]:
    """One LSTM step of :func:`n_step_lstm`: ``(h, c)`` from the input ``x``, the states
    ``h`` and ``c`` and one layer's eight weights ``w`` and biases ``b`` (the layout of
    :func:`n_step_lstm`). The cell function of
    :func:`~chainer.functions.rnn.n_step_rnn.n_step_rnn_impl` for an LSTM."""
    from chainer.functions.connection import linear

    w_in, bias, step = _build_lstm(w, b)
    return step(linear.linear(x, w_in, bias), h, c)


class NStepLSTM(n_step_rnn.BaseNStepRNN):
    """cuDNN kernel of :func:`n_step_lstm`; not implemented (see
    :class:`~chainer.functions.rnn.n_step_rnn.BaseNStepRNN`)."""


class NStepBiLSTM(n_step_rnn.BaseNStepRNN):
    """cuDNN kernel of :func:`n_step_bilstm`; not implemented (see
    :class:`~chainer.functions.rnn.n_step_rnn.BaseNStepRNN`)."""


__all__ = ["n_step_bilstm", "n_step_lstm"]
