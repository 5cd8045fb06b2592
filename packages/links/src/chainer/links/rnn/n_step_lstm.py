"""Stacked (bi)directional LSTMs over variable-length sequences."""

from __future__ import annotations

from typing import Any

from chainer import variable
from chainer.functions.rnn import n_step_lstm as n_step_lstm_function
from chainer.links.rnn import n_step_rnn


class NStepLSTMBase(n_step_rnn.NStepRNNBase):
    """The LSTM links: ``forward(hx, cx, xs) -> (hy, cy, ys)``, eight weights per cell
    (``w0..w3`` on the input for the gates ``i, f, a, o`` and ``w4..w7`` on the state)."""

    n_weights = 8

    @property
    def n_cells(self) -> int:
        return 2

    def rnn(self, *args: Any) -> Any:
        if self.use_bi_direction:
            return n_step_lstm_function.n_step_bilstm(*args)
        return n_step_lstm_function.n_step_lstm(*args)

    def forward(
        self, hx: Any, cx: Any, xs: Any, **kwargs: Any
    ) -> tuple[variable.Variable, variable.Variable, list[variable.Variable]]:
        """Run over the sequences ``xs``.

        Args:
            hx: Initial hidden states of shape ``(n_layers * D, len(xs), out_size)``, or
                ``None`` for zeros.
            cx: Initial cell states of the same shape, or ``None`` for zeros.
            xs: List of input sequences, ``xs[b]`` of shape ``(L_b, in_size)``, in any order.

        Returns:
            ``(hy, cy, ys)``: the final hidden and cell states (shape of ``hx``) and the
            outputs of the last layer, ``ys[b]`` of shape ``(L_b, D * out_size)``, in the
            order of ``xs``.
        """
        (hy, cy), ys = self._call([hx, cx], xs, kwargs)
        return hy, cy, ys


class NStepLSTM(NStepLSTMBase):
    """Stacked unidirectional LSTM over variable-length sequences.

    ``NStepLSTM(n_layers, in_size, out_size, dropout, *, initialW=None, initial_bias=None)``

    Applies :func:`chainer.functions.n_step_lstm`. Child ``l`` holds the parameters of
    layer ``l``: ``w0..w3`` of shape ``(out_size, in_size)`` (``(out_size, out_size)``
    above layer 0), ``w4..w7`` of shape ``(out_size, out_size)``, ``b0..b7`` of shape
    ``(out_size,)``.

    Args:
        n_layers: Number of layers.
        in_size: Input size.
        out_size: Hidden state size.
        dropout: Dropout ratio of the inputs of the layers above the first.
        initialW: Initializer of every weight matrix (default LeCunNormal).
        initial_bias: Initializer of every bias (default 0).

    Example:
        >>> lstm = L.NStepLSTM(1, 3, 4, 0.1)
        >>> hy, cy, ys = lstm(None, None, [np.ones((2, 3), 'f'), np.ones((5, 3), 'f')])
        >>> hy.shape, [y.shape for y in ys]
        ((1, 2, 4), [(2, 4), (5, 4)])
    """


class NStepBiLSTM(NStepLSTMBase):
    """Stacked bidirectional LSTM over variable-length sequences.

    ``NStepBiLSTM(n_layers, in_size, out_size, dropout, *, initialW=None, initial_bias=None)``

    Applies :func:`chainer.functions.n_step_bilstm`. Children ``2 l`` and ``2 l + 1`` hold
    the forward and backward direction of layer ``l``; the outputs have ``2 * out_size`` units.

    Example:
        >>> lstm = L.NStepBiLSTM(2, 3, 4, 0.0)
        >>> hy, cy, ys = lstm(None, None, [np.ones((2, 3), 'f')])
        >>> hy.shape, ys[0].shape
        ((4, 1, 4), (2, 8))
    """

    use_bi_direction = True


__all__ = ["NStepBiLSTM", "NStepLSTM"]
