"""Stacked uni- and bidirectional Elman RNNs over variable-length sequences."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer.functions.rnn import _n_step
from chainer.utils import argument


def _spec(activation: Any, where: str) -> _n_step.CellSpec:
    from chainer.functions.activation import relu, tanh
    from chainer.functions.connection import linear

    functions = {"tanh": tanh.tanh, "relu": relu.relu}
    if activation not in functions:
        raise ValueError(f'{where}: invalid activation "{activation}"; choose "tanh" or "relu"')
    act = functions[activation]

    def build(w: Sequence[Any], b: Sequence[Any]) -> tuple[Any, Any, _n_step.Step]:
        w_h = w[1]

        def step(projected: Any, h: Any, c: Any) -> tuple[Any, Any]:
            return act(projected + linear.linear(h, w_h)), None

        return w[0], b[0] + b[1], step

    return _n_step.CellSpec(f"rnn_{activation}", n_weights=2, n_input_weights=1, has_cell=False, build=build)


def n_step_rnn(
    n_layers: int, dropout_ratio: float, hx: Any, ws: Any, bs: Any, xs: Any, activation: str = "tanh", **kwargs: Any
) -> Any:
    """Stacked unidirectional Elman RNN over a batch of variable-length sequences.

    ``n_step_rnn(n_layers, dropout_ratio, hx, ws, bs, xs, activation='tanh')``

    Each layer ``l`` computes :math:`h_t = f(W_0 x_t + W_1 h_{t-1} + b_0 + b_1)` with
    ``W_j = ws[l][j]``, ``b_j = bs[l][j]`` and ``f`` the activation. Dropout (training
    mode only) is applied to the inputs of the layers above the first.

    Args:
        n_layers: Number of layers ``S``.
        dropout_ratio: Dropout ratio of the inputs of layers ``1 .. S - 1``.
        hx: Initial hidden states, shape ``(S, B, N)``.
        ws: ``S`` lists of 2 weight matrices: ``ws[l][0]`` of shape ``(N, I)`` (``(N, N)``
            above layer 0) and ``ws[l][1]`` of shape ``(N, N)``.
        bs: ``S`` lists of 2 bias vectors of shape ``(N,)``.
        xs: Time-major inputs, ``xs[t]`` of shape ``(B_t, I)`` with ``B_0 >= B_1 >= ...``
            (see :func:`n_step_lstm`; :func:`~chainer.functions.transpose_sequence` makes
            them from sequences sorted by decreasing length).
        activation: ``'tanh'`` or ``'relu'``.

    Returns:
        ``(hy, ys)``: final hidden states, shape ``(S, B, N)``, and the last layer's
        outputs, time-major: ``ys[t]`` of shape ``(B_t, N)``.

    Example:
        >>> seqs = [np.array([[1., 2.], [3., 4.]], 'f'), np.array([[5., 6.]], 'f')]
        >>> xs = F.transpose_sequence(seqs)  # xs[0]: first step of both, xs[1]: second of the first
        >>> ws = [[np.eye(2, dtype='f'), np.zeros((2, 2), 'f')]]
        >>> bs = [[np.zeros(2, 'f'), np.zeros(2, 'f')]]
        >>> hy, ys = F.n_step_rnn(1, 0.0, np.zeros((1, 2, 2), 'f'), ws, bs, xs, activation='relu')
        >>> [y.array for y in ys]
        [array([[1., 2.],
               [5., 6.]], dtype=float32), array([[3., 4.]], dtype=float32)]
    """
    _n_step.check_kwargs(kwargs)
    argument.assert_kwargs_empty(kwargs)
    spec = _spec(activation, "n_step_rnn")
    hy, _, ys = _n_step.n_step_rnn_base("n_step_rnn", spec, n_layers, dropout_ratio, hx, None, ws, bs, xs, False)
    return hy, ys


def n_step_birnn(
    n_layers: int, dropout_ratio: float, hx: Any, ws: Any, bs: Any, xs: Any, activation: str = "tanh", **kwargs: Any
) -> Any:
    """Stacked bidirectional Elman RNN over a batch of variable-length sequences.

    ``n_step_birnn(n_layers, dropout_ratio, hx, ws, bs, xs, activation='tanh')``

    The recurrence of :func:`n_step_rnn` in both directions; parameters and states of
    layer ``l`` are at index ``2 l`` (forward) and ``2 l + 1`` (backward in time), and a
    layer's output concatenates both directions (so ``ws[k][0]`` above the first layer
    has shape ``(N, 2N)``).

    Args:
        n_layers: Number of layers ``S``.
        dropout_ratio: Dropout ratio of the inputs of layers ``1 .. S - 1``.
        hx: Initial hidden states, shape ``(2S, B, N)``.
        ws: ``2S`` lists of 2 weight matrices.
        bs: ``2S`` lists of 2 bias vectors of shape ``(N,)``.
        xs: Time-major inputs, ``xs[t]`` of shape ``(B_t, I)`` with ``B_0 >= B_1 >= ...``.
        activation: ``'tanh'`` or ``'relu'``.

    Returns:
        ``(hy, ys)``: final states of shape ``(2S, B, N)`` and time-major outputs,
        ``ys[t]`` of shape ``(B_t, 2N)`` (forward direction first).

    Example:
        >>> xs = F.transpose_sequence([np.ones((3, 2), 'f')])
        >>> ws = [[np.eye(2, dtype='f'), np.zeros((2, 2), 'f')] for _ in range(2)]
        >>> bs = [[np.zeros(2, 'f'), np.zeros(2, 'f')] for _ in range(2)]
        >>> hy, ys = F.n_step_birnn(1, 0.0, np.zeros((2, 1, 2), 'f'), ws, bs, xs, activation='relu')
        >>> hy.shape, [y.shape for y in ys]
        ((2, 1, 2), [(1, 4), (1, 4), (1, 4)])
    """
    _n_step.check_kwargs(kwargs)
    argument.assert_kwargs_empty(kwargs)
    spec = _spec(activation, "n_step_birnn")
    hy, _, ys = _n_step.n_step_rnn_base("n_step_birnn", spec, n_layers, dropout_ratio, hx, None, ws, bs, xs, True)
    return hy, ys


__all__ = ["n_step_birnn", "n_step_rnn"]
