"""Gated recurrent units: :class:`StatelessGRU`, :class:`StatefulGRU` and its alias :class:`GRU`."""

from __future__ import annotations

from typing import Any

from chainer import link, variable
from chainer.functions.activation import sigmoid, tanh
from chainer.functions.math import linear_interpolate
from chainer.links.connection import linear
from chainer.links.rnn import _state


class GRUBase(link.Chain):
    """The six linear maps of a GRU: ``W_r, U_r`` (reset gate), ``W_z, U_z`` (update
    gate) and ``W, U`` (candidate), the ``W_*`` acting on the input and the ``U_*`` on
    the previous state. Every one of them has a bias."""

    def __init__(
        self, in_size: int, out_size: int, init: Any = None, inner_init: Any = None, bias_init: Any = None
    ) -> None:
        where = type(self).__name__
        # None: the W_* maps take their input size from the first input, as in Chainer 7.
        in_size = _state.check_optional_size(in_size, "in_size", where)
        out_size = _state.check_size(out_size, "out_size", where)
        super().__init__()
        self.in_size = in_size
        self.state_size = out_size
        with self.init_scope():
            self.W_r = linear.Linear(in_size, out_size, initialW=init, initial_bias=bias_init)
            self.U_r = linear.Linear(out_size, out_size, initialW=inner_init, initial_bias=bias_init)
            self.W_z = linear.Linear(in_size, out_size, initialW=init, initial_bias=bias_init)
            self.U_z = linear.Linear(out_size, out_size, initialW=inner_init, initial_bias=bias_init)
            self.W = linear.Linear(in_size, out_size, initialW=init, initial_bias=bias_init)
            self.U = linear.Linear(out_size, out_size, initialW=inner_init, initial_bias=bias_init)


class StatelessGRU(GRUBase):
    """Stateless Gated Recurrent Unit (Cho et al., 2014): one step with the state passed explicitly.

    ``StatelessGRU(in_size, out_size, init=None, inner_init=None, bias_init=None)``

    .. math::
        r &= \\sigma(W_r x + U_r h), \\qquad z = \\sigma(W_z x + U_z h), \\\\
        \\bar h &= \\tanh(W x + U (r \\odot h)), \\\\
        h_{new} &= (1 - z) \\odot h + z \\odot \\bar h.

    Args:
        in_size: Input size, or ``None`` to take it from the first input.
        out_size: Output (and state) size.
        init: Initializer of the ``W_*`` weights (default LeCunNormal).
        inner_init: Initializer of the ``U_*`` weights (default LeCunNormal).
        bias_init: Initializer of every bias (default 0).

    Example:
        >>> gru = L.StatelessGRU(3, 4)
        >>> gru(np.zeros((2, 4), 'f'), np.ones((2, 3), 'f')).shape
        (2, 4)
    """

    def forward(self, h: Any, x: Any) -> variable.Variable:
        """One step: ``h`` of shape ``(B, out_size)`` and ``x`` of shape ``(B, in_size)`` give the new state."""
        where = type(self).__name__
        _state.check_input(x, where)
        h = _state.as_state(h, "h", where, self.state_size, self.device)
        r = sigmoid.sigmoid(self.W_r(x) + self.U_r(h))
        z = sigmoid.sigmoid(self.W_z(x) + self.U_z(h))
        h_bar = tanh.tanh(self.W(x) + self.U(r * h))
        return linear_interpolate.linear_interpolate(z, h_bar, h)


class StatefulGRU(GRUBase):
    """Stateful Gated Recurrent Unit: :class:`StatelessGRU` keeping its state ``h`` inside.

    ``StatefulGRU(in_size, out_size, init=None, inner_init=None, bias_init=0)``

    At the first step after :meth:`reset_state` the previous state is zero, so
    ``h = z \\odot \\tanh(W x)`` with ``z = \\sigma(W_z x)``.

    Args:
        in_size: Input size, or ``None`` to take it from the first input.
        out_size: Output (and state) size.
        init: Initializer of the ``W_*`` weights (default LeCunNormal).
        inner_init: Initializer of the ``U_*`` weights (default LeCunNormal).
        bias_init: Initializer of every bias (default 0).

    Attributes:
        h (~chainer.Variable): the state (``None`` after a reset).

    Example:
        >>> gru = L.StatefulGRU(3, 4)
        >>> y = gru(np.ones((2, 3), 'f'))
        >>> y.shape, gru.h is y
        ((2, 4), True)
    """

    h: variable.Variable | None

    def __init__(
        self, in_size: int, out_size: int, init: Any = None, inner_init: Any = None, bias_init: Any = 0
    ) -> None:
        super().__init__(in_size, out_size, init, inner_init, bias_init)
        self.reset_state()

    def device_resident_accept(self, visitor: Any) -> None:
        super().device_resident_accept(visitor)
        if self.h is not None:
            visitor.visit_variable(self.h)

    def set_state(self, h: Any) -> None:
        """Set the state ``h`` of shape ``(B, out_size)``."""
        self.h = _state.as_state(h, "h", f"{type(self).__name__}.set_state", None, self.device)

    def reset_state(self) -> None:
        """Forget the state: the next call starts a new sequence."""
        self.h = None

    def forward(self, x: Any) -> variable.Variable:
        """Consume one time step ``x`` of shape ``(B, in_size)``; return (and keep) the new state."""
        where = type(self).__name__
        array = _state.check_input(x, where)
        z = self.W_z(x)
        h_bar = self.W(x)
        h = self.h
        if h is not None:
            if h.shape[0] != array.shape[0]:
                raise ValueError(
                    f"{where}: the batch size of x ({array.shape[0]}) must equal that of the state h ({h.shape[0]}); "
                    "call reset_state() before a new batch"
                )
            r = sigmoid.sigmoid(self.W_r(x) + self.U_r(h))
            z += self.U_z(h)
            h_bar += self.U(r * h)
        z = sigmoid.sigmoid(z)
        h_bar = tanh.tanh(h_bar)
        self.h = z * h_bar if h is None else linear_interpolate.linear_interpolate(z, h_bar, h)
        return self.h


class GRU(StatefulGRU):
    """Stateful Gated Recurrent Unit (the same layer as :class:`StatefulGRU`).

    ``GRU(in_size, out_size, init=None, inner_init=None, bias_init=0)``

    Since Chainer v2 ``GRU`` is stateful and takes one argument per call; the stateless
    v1 form ``gru(h, x)`` is :class:`StatelessGRU`.

    Example:
        >>> gru = L.GRU(3, 4)
        >>> gru(np.ones((2, 3), 'f')).shape
        (2, 4)
    """

    def forward(self, *args: Any) -> variable.Variable:
        if len(args) != 1:
            message = f"GRU: forward takes exactly one argument (the input x), got {len(args)}"
            if len(args) == 2:
                message += (
                    ". Since Chainer v2, chainer.links.GRU is stateful; for the stateless form gru(h, x) "
                    "use chainer.links.StatelessGRU"
                )
            raise ValueError(message)
        return super().forward(args[0])


__all__ = ["GRU", "StatefulGRU", "StatelessGRU"]
