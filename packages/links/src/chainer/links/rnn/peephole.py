"""LSTM with peephole connections (Gers & Schmidhuber, 2000)."""

from __future__ import annotations

from typing import Any

from chainer import link, variable
from chainer.functions.activation import _gates, sigmoid, tanh
from chainer.links.connection import linear
from chainer.links.rnn import _state


class StatefulPeepholeLSTM(_state.CellState, link.Chain):
    """Fully-connected LSTM layer with peephole connections, keeping its state inside.

    ``StatefulPeepholeLSTM(in_size, out_size)``

    The gates also look at the cell state:

    .. math::
        (a, i, f, o) &= W_x x_t + b + W_h h_{t-1}, \\\\
        c_t &= \\tanh(a) \\sigma(i + P_i c_{t-1}) + \\sigma(f + P_f c_{t-1}) c_{t-1}, \\\\
        h_t &= \\sigma(o + P_o c_t) \\tanh(c_t),

    with the rows of ``W_x`` and ``W_h`` interleaved per unit in the gate order
    ``a, i, f, o`` as in :class:`LSTM`.

    Args:
        in_size: Input size.
        out_size: Output (and state) size.

    Attributes:
        upward (~chainer.links.Linear): ``W_x`` and ``b``.
        lateral (~chainer.links.Linear): ``W_h`` (no bias).
        peep_i, peep_f, peep_o (~chainer.links.Linear): ``P_i``, ``P_f``, ``P_o`` (no bias).
        c, h (~chainer.Variable): the state (``None`` after a reset).

    Example:
        >>> lstm = L.StatefulPeepholeLSTM(3, 4)
        >>> lstm(np.ones((2, 3), 'f')).shape
        (2, 4)
    """

    def __init__(self, in_size: int, out_size: int) -> None:
        where = type(self).__name__
        in_size = _state.check_size(in_size, "in_size", where)
        out_size = _state.check_size(out_size, "out_size", where)
        super().__init__()
        self.state_size = out_size
        with self.init_scope():
            self.upward = linear.Linear(in_size, 4 * out_size)
            self.lateral = linear.Linear(out_size, 4 * out_size, nobias=True)
            self.peep_i = linear.Linear(out_size, out_size, nobias=True)
            self.peep_f = linear.Linear(out_size, out_size, nobias=True)
            self.peep_o = linear.Linear(out_size, out_size, nobias=True)
        self.reset_state()

    def forward(self, x: Any) -> variable.Variable:
        """Consume one time step ``x`` of shape ``(B, in_size)``; return ``h`` of shape ``(B, out_size)``."""
        where = type(self).__name__
        array = _state.check_input(x, where)
        lstm_in = self.upward(x)
        if self.h is not None:
            if self.h.shape[0] != array.shape[0]:
                raise ValueError(
                    f"{where}: the batch size of x ({array.shape[0]}) must equal that of the state "
                    f"({self.h.shape[0]}); call reset_state() before a new batch"
                )
            lstm_in += self.lateral(self.h)
        if self.c is None:
            self.c = _state.zeros_state(self, array.shape[0], self.state_size, array.dtype)
        a, i, f, o = _gates.split_gates(lstm_in, 4)
        c_prev = self.c
        a = tanh.tanh(a)
        i = sigmoid.sigmoid(i + self.peep_i(c_prev))
        f = sigmoid.sigmoid(f + self.peep_f(c_prev))
        c = a * i + f * c_prev
        o = sigmoid.sigmoid(o + self.peep_o(c))
        h = o * tanh.tanh(c)
        self.c, self.h = c, h
        return h


__all__ = ["StatefulPeepholeLSTM"]
