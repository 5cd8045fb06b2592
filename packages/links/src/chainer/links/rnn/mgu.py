"""Minimal gated units (Zhou et al., *Minimal Gated Unit for Recurrent Neural Networks*, 2016)."""

from __future__ import annotations

from typing import Any

from chainer import link, variable
from chainer.functions.activation import sigmoid, tanh
from chainer.functions.array import concat
from chainer.functions.math import linear_interpolate
from chainer.links.connection import linear
from chainer.links.rnn import _state


class MGUBase(link.Chain):
    """The two linear maps of an MGU, each acting on the concatenation ``[h, x]``."""

    def __init__(self, n_inputs: int, n_units: int) -> None:
        where = type(self).__name__
        n_inputs = _state.check_size(n_inputs, "n_inputs", where)
        n_units = _state.check_size(n_units, "n_units", where)
        super().__init__()
        self.state_size = n_units
        with self.init_scope():
            self.W_f = linear.Linear(n_units + n_inputs, n_units)
            self.W_h = linear.Linear(n_units + n_inputs, n_units)

    def _call_mgu(self, h: Any, x: Any) -> variable.Variable:
        f = sigmoid.sigmoid(self.W_f(concat.concat([h, x])))
        h_bar = tanh.tanh(self.W_h(concat.concat([f * h, x])))
        return linear_interpolate.linear_interpolate(f, h_bar, h)


class StatelessMGU(MGUBase):
    """Stateless minimal gated unit: one step with the state passed explicitly.

    ``StatelessMGU(n_inputs, n_units)``

    .. math::
        f &= \\sigma(W_f [h; x] + b_f), \\\\
        \\bar h &= \\tanh(W_h [f \\odot h; x] + b_h), \\\\
        h_{new} &= (1 - f) \\odot h + f \\odot \\bar h.

    Args:
        n_inputs: Input size.
        n_units: Output (and state) size.

    Attributes:
        W_f, W_h (~chainer.links.Linear): maps of shape ``(n_units, n_units + n_inputs)``;
            their first ``n_units`` columns act on the state, the rest on the input.

    Example:
        >>> mgu = L.StatelessMGU(3, 4)
        >>> mgu(np.zeros((2, 4), 'f'), np.ones((2, 3), 'f')).shape
        (2, 4)
    """

    def forward(self, h: Any, x: Any) -> variable.Variable:
        """One step: ``h`` of shape ``(B, n_units)`` and ``x`` of shape ``(B, n_inputs)`` give the new state."""
        where = type(self).__name__
        _state.check_input(x, where)
        h = _state.as_state(h, "h", where, self.state_size, self.device)
        return self._call_mgu(h, x)


class StatefulMGU(MGUBase):
    """Minimal gated unit keeping its state ``h`` inside (see :class:`StatelessMGU`).

    ``StatefulMGU(in_size, out_size)``

    The state starts at zero after :meth:`reset_state`.

    Args:
        in_size: Input size.
        out_size: Output (and state) size.

    Attributes:
        h (~chainer.Variable): the state (``None`` after a reset).

    Example:
        >>> mgu = L.StatefulMGU(3, 4)
        >>> mgu(np.ones((2, 3), 'f')).shape
        (2, 4)
    """

    h: variable.Variable | None

    def __init__(self, in_size: int, out_size: int) -> None:
        super().__init__(in_size, out_size)
        self.reset_state()

    def device_resident_accept(self, visitor: Any) -> None:
        super().device_resident_accept(visitor)
        if self.h is not None:
            visitor.visit_variable(self.h)

    def set_state(self, h: Any) -> None:
        """Set the state ``h`` of shape ``(B, out_size)``."""
        self.h = _state.as_state(h, "h", f"{type(self).__name__}.set_state", None, self.device)

    def reset_state(self) -> None:
        """Forget the state: the next call starts from zero."""
        self.h = None

    def forward(self, x: Any) -> variable.Variable:
        """Consume one time step ``x`` of shape ``(B, in_size)``; return (and keep) the new state."""
        where = type(self).__name__
        array = _state.check_input(x, where)
        if self.h is None:
            h = _state.zeros_state(self, array.shape[0], self.state_size, array.dtype)
        elif self.h.shape[0] != array.shape[0]:
            raise ValueError(
                f"{where}: the batch size of x ({array.shape[0]}) must equal that of the state "
                f"({self.h.shape[0]}); call reset_state() before a new batch"
            )
        else:
            h = self.h
        self.h = self._call_mgu(h, x)
        return self.h


__all__ = ["StatefulMGU", "StatelessMGU"]
