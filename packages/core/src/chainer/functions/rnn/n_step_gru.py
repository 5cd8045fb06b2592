"""Stacked uni- and bidirectional GRUs over variable-length sequences."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer.functions.rnn import _n_step, n_step_rnn
from chainer.utils import argument


def _build_gru(w: Sequence[Any], b: Sequence[Any]) -> tuple[Any, Any, _n_step.Step]:
    from chainer.functions.activation import sigmoid, tanh
    from chainer.functions.array import concat, split_axis
    from chainer.functions.connection import linear

    n_units = w[0].shape[0]
    w_in = concat.concat((w[0], w[1], w[2]), 0)
    b_in = concat.concat((b[0], b[1], b[2]), 0)
    w_h = concat.concat((w[3], w[4], w[5]), 0)
    b_h = concat.concat((b[3], b[4], b[5]), 0)
    cuts = [2 * n_units]

    def step(projected: Any, h: Any, c: Any) -> tuple[Any, Any]:
        x_rz, x_n = split_axis.split_axis(projected, cuts, 1)
        h_rz, h_n = split_axis.split_axis(linear.linear(h, w_h, b_h), cuts, 1)
        r, z = split_axis.split_axis(sigmoid.sigmoid(x_rz + h_rz), [n_units], 1)
        candidate = tanh.tanh(x_n + r * h_n)
        # (1 - z) * candidate + z * h, with one product fewer.
        return candidate + z * (h - candidate), None

    return w_in, b_in, step


_GRU = _n_step.CellSpec("gru", n_weights=6, n_input_weights=3, has_cell=False, build=_build_gru)


def n_step_gru(n_layers: int, dropout_ratio: float, hx: Any, ws: Any, bs: Any, xs: Any, **kwargs: Any) -> Any:
    """Stacked unidirectional GRU over a batch of variable-length sequences.

    ``n_step_gru(n_layers, dropout_ratio, hx, ws, bs, xs)``

    Each layer ``l`` runs, for every sequence and time step,

    .. math::
        r_t &= \\sigma(W_0 x_t + W_3 h_{t-1} + b_0 + b_3), \\\\
        z_t &= \\sigma(W_1 x_t + W_4 h_{t-1} + b_1 + b_4), \\\\
        \\tilde h_t &= \\tanh(W_2 x_t + b_2 + r_t \\odot (W_5 h_{t-1} + b_5)), \\\\
        h_t &= (1 - z_t) \\odot \\tilde h_t + z_t \\odot h_{t-1},

    with ``W_j = ws[l][j]`` and ``b_j = bs[l][j]``. Dropout (training mode only) is
    applied to the inputs of the layers above the first.

    Args:
        n_layers: Number of layers ``S``.
        dropout_ratio: Dropout ratio of the inputs of layers ``1 .. S - 1``.
        hx: Initial hidden states, shape ``(S, B, N)``.
        ws: ``S`` lists of 6 weight matrices: ``ws[l][0..2]`` of shape ``(N, I)``
            (``(N, N)`` above layer 0) and ``ws[l][3..5]`` of shape ``(N, N)``.
        bs: ``S`` lists of 6 bias vectors of shape ``(N,)``.
        xs: Time-major inputs, ``xs[t]`` of shape ``(B_t, I)`` with ``B_0 >= B_1 >= ...``
            (see :func:`n_step_lstm`; :func:`~chainer.functions.transpose_sequence` makes
            them from sequences sorted by decreasing length).

    Returns:
        ``(hy, ys)``: final hidden states, shape ``(S, B, N)``, and the last layer's
        outputs, time-major: ``ys[t]`` of shape ``(B_t, N)``.

    Example:
        >>> S, B, N, I = 1, 2, 3, 4
        >>> xs = F.transpose_sequence([np.ones((3, I), 'f'), np.ones((1, I), 'f')])
        >>> ws = [[np.full((N, I) if j < 3 else (N, N), 0.1, 'f') for j in range(6)]]
        >>> bs = [[np.zeros(N, 'f') for _ in range(6)]]
        >>> hy, ys = F.n_step_gru(S, 0.0, np.zeros((S, B, N), 'f'), ws, bs, xs)
        >>> hy.shape, [y.shape for y in ys]
        ((1, 2, 3), [(2, 3), (1, 3), (1, 3)])
    """
    _n_step.check_kwargs(kwargs)
    argument.assert_kwargs_empty(kwargs)
    return n_step_gru_base(n_layers, dropout_ratio, hx, ws, bs, xs, False)


def n_step_bigru(n_layers: int, dropout_ratio: float, hx: Any, ws: Any, bs: Any, xs: Any, **kwargs: Any) -> Any:
    """Stacked bidirectional GRU over a batch of variable-length sequences.

    ``n_step_bigru(n_layers, dropout_ratio, hx, ws, bs, xs)``

    The equations of :func:`n_step_gru` in both directions; parameters and states of
    layer ``l`` are at index ``2 l`` (forward) and ``2 l + 1`` (backward in time), and
    a layer's output concatenates both directions (so ``ws[k][0..2]`` above the first
    layer have shape ``(N, 2N)``).

    Args:
        n_layers: Number of layers ``S``.
        dropout_ratio: Dropout ratio of the inputs of layers ``1 .. S - 1``.
        hx: Initial hidden states, shape ``(2S, B, N)``.
        ws: ``2S`` lists of 6 weight matrices.
        bs: ``2S`` lists of 6 bias vectors of shape ``(N,)``.
        xs: Time-major inputs, ``xs[t]`` of shape ``(B_t, I)`` with ``B_0 >= B_1 >= ...``.

    Returns:
        ``(hy, ys)``: final states of shape ``(2S, B, N)`` and time-major outputs,
        ``ys[t]`` of shape ``(B_t, 2N)`` (forward direction first).

    Example:
        >>> S, B, N, I = 1, 2, 3, 4
        >>> xs = F.transpose_sequence([np.ones((2, I), 'f'), np.ones((2, I), 'f')])
        >>> ws = [[np.full((N, I) if j < 3 else (N, N), 0.1, 'f') for j in range(6)] for _ in range(2)]
        >>> bs = [[np.zeros(N, 'f') for _ in range(6)] for _ in range(2)]
        >>> hy, ys = F.n_step_bigru(S, 0.0, np.zeros((2 * S, B, N), 'f'), ws, bs, xs)
        >>> hy.shape, [y.shape for y in ys]
        ((2, 2, 3), [(2, 6), (2, 6)])
    """
    _n_step.check_kwargs(kwargs)
    argument.assert_kwargs_empty(kwargs)
    return n_step_gru_base(n_layers, dropout_ratio, hx, ws, bs, xs, True)


def n_step_gru_base(
    n_layers: int, dropout_ratio: float, hx: Any, ws: Any, bs: Any, xs: Any, use_bi_direction: bool, **kwargs: Any
) -> Any:
    """:func:`n_step_gru` (``use_bi_direction=False``) or :func:`n_step_bigru` (``True``).

    Returns:
        ``(hy, ys)``, as those functions do.
    """
    where = "n_step_bigru" if use_bi_direction else "n_step_gru"
    _n_step.check_kwargs(kwargs)
    argument.assert_kwargs_empty(kwargs)
    hy, _, ys = _n_step.n_step_rnn_base(where, _GRU, n_layers, dropout_ratio, hx, None, ws, bs, xs, use_bi_direction)
    return hy, ys


def _gru(x: Any, h: Any, c: Any, w: Sequence[Any], b: Sequence[Any]) -> tuple[Any, None]:
    """One GRU step of :func:`n_step_gru` as a cell function of
    :func:`~chainer.functions.rnn.n_step_rnn.n_step_rnn_impl`: ``(h, None)`` from the
    input ``x``, the state ``h`` and one layer's six weights ``w`` and biases ``b``
    (``c`` is not used)."""
    from chainer.functions.connection import linear

    w_in, b_in, step = _build_gru(w, b)
    return step(linear.linear(x, w_in, b_in), h, None)


class NStepGRU(n_step_rnn.BaseNStepRNN):
    """cuDNN kernel of :func:`n_step_gru`; not implemented (see
    :class:`~chainer.functions.rnn.n_step_rnn.BaseNStepRNN`)."""


class NStepBiGRU(n_step_rnn.BaseNStepRNN):
    """cuDNN kernel of :func:`n_step_bigru`; not implemented (see
    :class:`~chainer.functions.rnn.n_step_rnn.BaseNStepRNN`)."""


__all__ = ["n_step_bigru", "n_step_gru"]
