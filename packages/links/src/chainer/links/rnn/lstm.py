"""Fully-connected LSTM layers: the stateful :class:`LSTM` and :class:`StatelessLSTM`."""

from __future__ import annotations

from typing import Any

from chainer import initializer, link, variable
from chainer.functions.array import concat, split_axis
from chainer.functions.rnn import lstm as lstm_function
from chainer.links.connection import linear
from chainer.links.rnn import _state


class LSTMBase(link.Chain):
    """The parameters of the fully-connected LSTM layers.

    ``upward`` (``W_x``, with the bias) maps the input and ``lateral`` (``W_h``, no bias)
    the previous output to the ``4 * out_size`` gate pre-activations. Their rows are
    interleaved per unit in the gate order ``a, i, f, o`` (row ``4 k + g`` is gate ``g`` of
    unit ``k``), the layout :func:`chainer.functions.lstm` reads.
    """

    def __init__(
        self,
        in_size: int | None,
        out_size: int | None = None,
        lateral_init: Any = None,
        upward_init: Any = None,
        bias_init: Any = None,
        forget_bias_init: Any = None,
    ) -> None:
        where = type(self).__name__
        if out_size is None:
            # LSTM(n) means out_size n with the input size inferred at the first call.
            in_size, out_size = None, in_size
        state_size = _state.check_size(out_size, "out_size", where)
        in_size = _state.check_optional_size(in_size, "in_size", where)
        super().__init__()
        self.state_size = state_size
        self.lateral_init = lateral_init
        self.upward_init = upward_init
        self.bias_init = 0 if bias_init is None else bias_init
        self.forget_bias_init = 1 if forget_bias_init is None else forget_bias_init
        upward_init = _state.check_initializer(self.upward_init, "upward_init", where)
        lateral_init = _state.check_initializer(self.lateral_init, "lateral_init", where)
        bias_init = _state.check_initializer(self.bias_init, "bias_init", where)
        forget_bias_init = _state.check_initializer(self.forget_bias_init, "forget_bias_init", where)
        with self.init_scope():
            self.upward = linear.Linear(in_size, 4 * state_size, initialW=0)
            self.lateral = linear.Linear(state_size, 4 * state_size, initialW=0, nobias=True)
        # The parameters keep these initializers, so that copy('init') draws the LSTM
        # initialisation again rather than a plain Linear one.
        bias = self.upward.b
        assert bias is not None
        self.upward.W.initializer = _GateBlocks((upward_init,) * 4)
        self.lateral.W.initializer = _GateBlocks((lateral_init,) * 4)
        bias.initializer = _InterleavedGates((bias_init, bias_init, forget_bias_init, bias_init))
        # With the input size unknown, the lateral weights and the biases stay zero until
        # the first call draws them together with the upward weights, as in Chainer 7.8.1.
        if self.upward.W.array is not None:
            self._initialize_params()

    def _initialize_params(self) -> None:
        """Draw the initial weights and biases in Chainer 7.8.1's order: gate by gate the
        lateral block then the upward one, then the biases of the gates a, i, f and o.
        A program that seeds NumPy's generator then starts from 7.8.1's numbers."""
        n = self.state_size
        lateral, upward = self.lateral.W, self.upward.W
        bias = self.upward.b
        assert bias is not None
        for g in range(4):
            rows = slice(g * n, (g + 1) * n)
            _fill(lateral.initializer.inits[g], lateral.array, rows)
            _fill(upward.initializer.inits[g], upward.array, rows)
        bias.initializer(bias.array)

    def _initialize_upward(self, x: Any) -> None:
        W = self.upward.W
        if W.array is None:
            gate_blocks = W.initializer
            # The array only: _initialize_params fills it, in 7.8.1's order of draws.
            W.initializer = _Unfilled(gate_blocks.dtype)
            try:
                W.initialize((4 * self.state_size, _state.feature_size(x)))
            finally:
                W.initializer = gate_blocks
            self._initialize_params()


def _fill(init: Any, array: Any, index: slice) -> None:
    """Run ``initializer`` on ``array[index]``, through a contiguous buffer where the view is not."""
    view = array[index]
    if view.flags.c_contiguous:
        init(view)
    else:
        buffer = view.copy()
        init(buffer)
        array[index] = buffer


class _Unfilled(initializer.Initializer):
    """Leaves the array as allocated (its values are written right after)."""

    def __call__(self, array: Any) -> None:
        pass


class _GateBlocks(initializer.Initializer):
    """Fills the ``n`` equal row blocks of a weight, each with its own initializer (so a
    fan-in based initializer sees the ``(out_size, fan_in)`` shape of one gate's matrix)."""

    def __init__(self, inits: tuple[Any, ...]) -> None:
        super().__init__()
        self.inits = inits

    def __call__(self, array: Any) -> None:
        n = array.shape[0] // len(self.inits)
        for g, init in enumerate(self.inits):
            _fill(init, array, slice(g * n, (g + 1) * n))


class _InterleavedGates(initializer.Initializer):
    """Fills the entries of gate ``g`` (``g, g + n, g + 2n, ...``) with the ``g``-th initializer."""

    def __init__(self, inits: tuple[Any, ...]) -> None:
        super().__init__()
        self.inits = inits

    def __call__(self, array: Any) -> None:
        n = len(self.inits)
        for g, init in enumerate(self.inits):
            _fill(init, array, slice(g, None, n))


class StatelessLSTM(LSTMBase):
    """Stateless LSTM layer: one step of :class:`LSTM` with the state passed explicitly.

    ``StatelessLSTM(in_size, out_size=None, lateral_init=None, upward_init=None, bias_init=None, forget_bias_init=None)``

    Computes the gate pre-activations ``upward(x) + lateral(h)`` and applies
    :func:`chainer.functions.lstm` to them and the cell state ``c``.

    Args:
        in_size: Input size; ``None`` infers it at the first call. With one size given
            (``StatelessLSTM(n)``) it is ``out_size``.
        out_size: Output (and state) size.
        lateral_init: Initializer of ``lateral.W`` (default :class:`~chainer.initializers.LeCunNormal`).
        upward_init: Initializer of ``upward.W`` (default LeCunNormal).
        bias_init: Initializer of the ``a``, ``i`` and ``o`` biases (default 0).
        forget_bias_init: Initializer of the forget-gate bias (default 1).

    Attributes:
        upward (~chainer.links.Linear): input-to-gates transformation.
        lateral (~chainer.links.Linear): output-to-gates transformation (no bias).

    Example:
        >>> lstm = L.StatelessLSTM(3, 4)
        >>> c, h = lstm(None, None, np.ones((2, 3), 'f'))
        >>> c.shape, h.shape
        ((2, 4), (2, 4))
    """

    def forward(self, c: Any, h: Any, x: Any) -> tuple[variable.Variable, variable.Variable]:
        """One step.

        Args:
            c: Previous cell state of shape ``(B, out_size)``, or ``None`` for zeros.
            h: Previous output of shape ``(B, out_size)``, or ``None`` for zeros.
            x: Input of shape ``(B, in_size)`` (or any shape whose trailing axes have
                ``in_size`` elements).

        Returns:
            ``(c_new, h_new)``.
        """
        where = type(self).__name__
        array = _state.check_input(x, where)
        self._initialize_upward(array)
        lstm_in = self.upward(x)
        if h is not None:
            h = _state.as_state(h, "h", where, self.state_size, self.device)
            lstm_in += self.lateral(h)
        if c is None:
            c = _state.zeros_state(self, array.shape[0], self.state_size, array.dtype)
        else:
            c = _state.as_state(c, "c", where, self.state_size, self.device)
        return lstm_function.lstm(c, lstm_in)


class LSTM(_state.SettableCellState, LSTMBase):
    """Fully-connected LSTM layer with its state kept inside (the usual RNN building block).

    ``LSTM(in_size, out_size=None, lateral_init=None, upward_init=None, bias_init=None, forget_bias_init=None)``

    Each call consumes one time step ``x_t`` and computes

    .. math::
        (a, i, f, o) &= W_x x_t + b + W_h h_{t-1}, \\\\
        c_t &= \\tanh(a) \\sigma(i) + \\sigma(f) c_{t-1}, \\qquad h_t = \\sigma(o) \\tanh(c_t),

    keeping ``c`` and ``h`` for the next call (``W_h h`` is skipped at the first step).
    Call :meth:`reset_state` before each new sequence. The batch may shrink from one
    step to the next (sequences of decreasing length sorted longest first): the first
    ``B_t`` rows of the state are updated and the rest are kept.

    Args:
        in_size: Input size; ``None`` infers it at the first call. With one size given
            (``LSTM(n)``) it is ``out_size``.
        out_size: Output (and state) size.
        lateral_init: Initializer of ``lateral.W`` (default :class:`~chainer.initializers.LeCunNormal`).
        upward_init: Initializer of ``upward.W`` (default LeCunNormal).
        bias_init: Initializer of the ``a``, ``i`` and ``o`` biases (default 0).
        forget_bias_init: Initializer of the forget-gate bias (default 1).

    Attributes:
        upward (~chainer.links.Linear): input-to-gates transformation, ``W`` of shape
            ``(4 * out_size, in_size)``; rows interleaved per unit in gate order ``a, i, f, o``.
        lateral (~chainer.links.Linear): output-to-gates transformation (no bias).
        c (~chainer.Variable): cell state (``None`` after a reset).
        h (~chainer.Variable): last output (``None`` after a reset).

    Example:
        >>> rnn = L.LSTM(100, 50)
        >>> rnn.reset_state()
        >>> y = rnn(np.random.randn(10, 100).astype(np.float32))
        >>> y.shape, rnn.c.shape
        ((10, 50), (10, 50))
    """

    def __init__(
        self,
        in_size: int | None,
        out_size: int | None = None,
        lateral_init: Any = None,
        upward_init: Any = None,
        bias_init: Any = None,
        forget_bias_init: Any = None,
    ) -> None:
        super().__init__(in_size, out_size, lateral_init, upward_init, bias_init, forget_bias_init)
        self.reset_state()

    def forward(self, x: Any) -> variable.Variable:
        """Consume one time step ``x`` of shape ``(B, in_size)`` and return ``h`` of shape ``(B, out_size)``."""
        where = type(self).__name__
        array = _state.check_input(x, where)
        self._initialize_upward(array)
        batch = array.shape[0]
        lstm_in = self.upward(x)
        h_rest = None
        if self.h is not None:
            h_size = self.h.shape[0]
            if batch == 0:
                h_rest = self.h
            elif h_size < batch:
                # A TypeError, as in Chainer 7.
                raise TypeError(
                    f"{where}: the batch size of x ({batch}) must be at most that of the previous state h ({h_size})"
                )
            elif h_size > batch:
                h_update, h_rest = split_axis.split_axis(self.h, [batch], axis=0)
                lstm_in += self.lateral(h_update)
            else:
                lstm_in += self.lateral(self.h)
        if self.c is None:
            self.c = _state.zeros_state(self, batch, self.state_size, array.dtype)
        self.c, y = lstm_function.lstm(self.c, lstm_in)
        if h_rest is None:
            self.h = y
        elif batch == 0:
            self.h = h_rest
        else:
            self.h = concat.concat([y, h_rest], axis=0)
        return y


__all__ = ["LSTM", "StatelessLSTM"]
