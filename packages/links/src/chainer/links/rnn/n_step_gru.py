"""Stacked (bi)directional GRUs over variable-length sequences."""

from __future__ import annotations

from typing import Any

from chainer import variable
from chainer.functions.rnn import n_step_gru as n_step_gru_function
from chainer.links.rnn import n_step_rnn


class NStepGRUBase(n_step_rnn.NStepRNNBase):
    """The GRU links: ``forward(hx, xs) -> (hy, ys)``, six weights per cell (``w0..w2`` on
    the input for the reset, update and candidate parts, ``w3..w5`` on the state)."""

    n_weights = 6

    @property
    def n_cells(self) -> int:
        return 1

    def rnn(self, *args: Any) -> Any:
        if self.use_bi_direction:
            return n_step_gru_function.n_step_bigru(*args)
        return n_step_gru_function.n_step_gru(*args)

    def forward(self, hx: Any, xs: Any, **kwargs: Any) -> tuple[variable.Variable, list[variable.Variable]]:
        """Run over the sequences ``xs``.

        Args:
            hx: Initial hidden states of shape ``(n_layers * D, len(xs), out_size)``, or
                ``None`` for zeros.
            xs: List of input sequences, ``xs[b]`` of shape ``(L_b, in_size)``, in any order.

        Returns:
            ``(hy, ys)``: the final hidden states (shape of ``hx``) and the outputs of the
            last layer, ``ys[b]`` of shape ``(L_b, D * out_size)``, in the order of ``xs``.
        """
        (hy,), ys = self._call([hx], xs, kwargs)
        return hy, ys


class NStepGRU(NStepGRUBase):
    """Stacked unidirectional GRU over variable-length sequences.

    ``NStepGRU(n_layers, in_size, out_size, dropout, *, initialW=None, initial_bias=None)``

    Applies :func:`chainer.functions.n_step_gru`; child ``l`` holds ``w0..w5`` and
    ``b0..b5`` of layer ``l``.

    Example:
        >>> gru = L.NStepGRU(2, 3, 4, 0.0)
        >>> hy, ys = gru(None, [np.ones((3, 3), 'f')])
        >>> hy.shape, ys[0].shape
        ((2, 1, 4), (3, 4))
    """


class NStepBiGRU(NStepGRUBase):
    """Stacked bidirectional GRU over variable-length sequences.

    ``NStepBiGRU(n_layers, in_size, out_size, dropout, *, initialW=None, initial_bias=None)``

    Applies :func:`chainer.functions.n_step_bigru`; children ``2 l`` and ``2 l + 1`` hold the
    forward and backward direction of layer ``l``, and outputs have ``2 * out_size`` units.
    """

    use_bi_direction = True


__all__ = ["NStepBiGRU", "NStepGRU"]
