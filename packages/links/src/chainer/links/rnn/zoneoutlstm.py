"""LSTM regularised by zoneout (Krueger et al., 2017)."""

from __future__ import annotations

import numbers
from typing import Any

from chainer import link, variable
from chainer.functions.activation import _gates, sigmoid, tanh
from chainer.functions.noise import zoneout
from chainer.links.connection import linear
from chainer.links.rnn import _state
from chainer.utils import argument


def _check_zoneout_ratio(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= float(value) <= 1:
        raise ValueError(f"StatefulZoneoutLSTM: {name} must be a real number in [0, 1], got {value!r}")
    return float(value)


class StatefulZoneoutLSTM(_state.SettableCellState, link.Chain):
    """Fully-connected LSTM layer with zoneout on its cell state and output, keeping its state inside.

    ``StatefulZoneoutLSTM(in_size, out_size, c_ratio=0.5, h_ratio=0.5)``

    The LSTM step of :class:`LSTM` computes the candidates ``c'`` and ``h' = σ(o) tanh(c')``;
    in training mode each unit of the new state then keeps its previous value with
    probability ``c_ratio`` (cell) or ``h_ratio`` (output) — see
    :func:`chainer.functions.zoneout`. At test time the state is ``(c', h')``.

    Args:
        in_size: Input size.
        out_size: Output (and state) size.
        c_ratio: Zoneout ratio of the cell state, in ``[0, 1]``.
        h_ratio: Zoneout ratio of the output, in ``[0, 1]``.

    Attributes:
        upward (~chainer.links.Linear): input-to-gates transformation (rows interleaved
            per unit in gate order ``a, i, f, o``).
        lateral (~chainer.links.Linear): output-to-gates transformation (no bias).
        c, h (~chainer.Variable): the state (``None`` after a reset).

    Example:
        >>> lstm = L.StatefulZoneoutLSTM(3, 4, c_ratio=0.3, h_ratio=0.2)
        >>> lstm(np.ones((2, 3), 'f')).shape
        (2, 4)
    """

    def __init__(self, in_size: int, out_size: int, c_ratio: float = 0.5, h_ratio: float = 0.5, **kwargs: Any) -> None:
        argument.check_unexpected_kwargs(
            kwargs, train="train argument is not supported anymore. Use chainer.using_config"
        )
        argument.assert_kwargs_empty(kwargs)
        where = type(self).__name__
        in_size = _state.check_size(in_size, "in_size", where)
        out_size = _state.check_size(out_size, "out_size", where)
        c_ratio = _check_zoneout_ratio(c_ratio, "c_ratio")
        h_ratio = _check_zoneout_ratio(h_ratio, "h_ratio")
        super().__init__()
        self.state_size = out_size
        self.c_ratio = c_ratio
        self.h_ratio = h_ratio
        with self.init_scope():
            self.upward = linear.Linear(in_size, 4 * out_size)
            self.lateral = linear.Linear(out_size, 4 * out_size, nobias=True)
        self.reset_state()

    def forward(self, x: Any) -> variable.Variable:
        """Consume one time step ``x`` of shape ``(B, in_size)``; return ``h`` of shape ``(B, out_size)``."""
        where = type(self).__name__
        array = _state.check_input(x, where)
        batch = array.shape[0]
        lstm_in = self.upward(x)
        if self.h is None:
            self.h = _state.zeros_state(self, batch, self.state_size, array.dtype)
        else:
            if self.h.shape[0] != batch:
                raise ValueError(
                    f"{where}: the batch size of x ({batch}) must equal that of the state "
                    f"({self.h.shape[0]}); call reset_state() before a new batch"
                )
            lstm_in += self.lateral(self.h)
        if self.c is None:
            self.c = _state.zeros_state(self, batch, self.state_size, array.dtype)
        a, i, f, o = _gates.split_gates(lstm_in, 4)
        c_next = tanh.tanh(a) * sigmoid.sigmoid(i) + sigmoid.sigmoid(f) * self.c
        h_next = sigmoid.sigmoid(o) * tanh.tanh(c_next)
        self.c = zoneout.zoneout(self.c, c_next, self.c_ratio)
        self.h = zoneout.zoneout(self.h, h_next, self.h_ratio)
        return self.h


__all__ = ["StatefulZoneoutLSTM"]
