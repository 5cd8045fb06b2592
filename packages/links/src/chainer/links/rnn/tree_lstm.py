"""Tree-structured LSTM units (Tai et al., *Improved Semantic Representations From
Tree-Structured Long Short-Term Memory Networks*, 2015)."""

from __future__ import annotations

from typing import Any

from chainer import link, variable
from chainer.functions.activation import sigmoid, tanh
from chainer.functions.array import concat, split_axis
from chainer.functions.rnn import tree_lstm as tree_lstm_function
from chainer.links.connection import linear
from chainer.links.rnn import _state


def _batch_and_dtype(where: str, arrays: list[Any], x: Any) -> tuple[int, Any]:
    if x is not None:
        array = _state.check_input(x, where)
        return array.shape[0], array.dtype
    for value in arrays:
        if value is not None:
            array = _state.check_input(value, where)
            return array.shape[0], array.dtype
    raise ValueError(f"{where}: x and every child state are None; the batch size cannot be inferred")


class ChildSumTreeLSTM(link.Chain):
    """Child-Sum Tree-LSTM unit: merges any number of children.

    ``ChildSumTreeLSTM(in_size, out_size)``

    For children states ``(c_k, h_k)`` and input ``x``, with :math:`\\tilde h = \\sum_k h_k`:

    .. math::
        (a, i, o) &= W_x^{aio} x + b^{aio} + W_h^{aio} \\tilde h, \\qquad
        f_k = W_x^{f} x + b^{f} + W_h^{f} h_k, \\\\
        c &= \\tanh(a) \\sigma(i) + \\sum_k \\sigma(f_k) c_k, \\qquad h = \\sigma(o) \\tanh(c).

    Args:
        in_size: Input size.
        out_size: Size of ``c`` and ``h``.

    Attributes:
        W_x (~chainer.links.Linear): ``(4 * out_size, in_size)``, rows in blocks ``a, i, o, f``.
        W_h_aio (~chainer.links.Linear): ``(3 * out_size, out_size)``, blocks ``a, i, o`` (no bias).
        W_h_f (~chainer.links.Linear): ``(out_size, out_size)`` (no bias).

    Example:
        >>> unit = L.ChildSumTreeLSTM(3, 4)
        >>> c1, h1 = unit(np.ones((2, 3), 'f'))                    # a leaf
        >>> c, h = unit(c1, c1, h1, h1, np.ones((2, 3), 'f'))      # two children
        >>> c.shape, h.shape
        ((2, 4), (2, 4))
    """

    def __init__(self, in_size: int, out_size: int) -> None:
        where = type(self).__name__
        in_size = _state.check_size(in_size, "in_size", where)
        out_size = _state.check_size(out_size, "out_size", where)
        super().__init__()
        self.in_size = in_size
        self.state_size = out_size
        with self.init_scope():
            self.W_x = linear.Linear(in_size, 4 * out_size)
            self.W_h_aio = linear.Linear(out_size, 3 * out_size, nobias=True)
            self.W_h_f = linear.Linear(out_size, out_size, nobias=True)

    def forward(self, *cshsx: Any) -> tuple[variable.Variable, variable.Variable]:
        """``unit(c_1, ..., c_N, h_1, ..., h_N, x)``: the new ``(c, h)``, each of shape ``(B, out_size)``.

        A child state given as ``None`` is zero; ``x`` given as ``None`` is zero.
        """
        where = type(self).__name__
        if len(cshsx) % 2 != 1:
            raise TypeError(
                f"{where}: expected the arguments c_1, ..., c_N, h_1, ..., h_N, x (an odd number), got {len(cshsx)}"
            )
        n = len(cshsx) // 2
        cs, hs, x = list(cshsx[:n]), list(cshsx[n:-1]), cshsx[-1]
        batch, dtype = _batch_and_dtype(where, cs + hs, x)
        size = self.state_size
        if x is None:
            x = _state.zeros_state(self, batch, self.in_size, dtype)
        a, i, o, f_x = split_axis.split_axis(self.W_x(x), 4, axis=1)
        if n == 0:
            c = tanh.tanh(a) * sigmoid.sigmoid(i)
            return c, sigmoid.sigmoid(o) * tanh.tanh(c)
        cs = [_state.zeros_state(self, batch, size, dtype) if c is None else c for c in cs]
        hs = [_state.zeros_state(self, batch, size, dtype) if h is None else h for h in hs]
        h_sum = hs[0]
        for h in hs[1:]:
            h_sum = h_sum + h
        a_h, i_h, o_h = split_axis.split_axis(self.W_h_aio(h_sum), 3, axis=1)
        fs = [f_x + self.W_h_f(h) for h in hs]
        # F.tree_lstm takes the gates as contiguous blocks a, i, o, f_1, ..., f_N.
        return tree_lstm_function.tree_lstm(*cs, concat.concat([a + a_h, i + i_h, o + o_h, *fs], axis=1))


class NaryTreeLSTM(link.Chain):
    """N-ary Tree-LSTM unit: merges exactly ``n_ary`` ordered children.

    ``NaryTreeLSTM(in_size, out_size, n_ary=2)``

    For children states ``(c_k, h_k)``, ``k = 1..N``, and input ``x``:

    .. math::
        (a, i, o, f_1, \\dots, f_N) &= W_x x + b + \\sum_k W_{h_k} h_k, \\\\
        c &= \\tanh(a) \\sigma(i) + \\sum_k \\sigma(f_k) c_k, \\qquad h = \\sigma(o) \\tanh(c).

    Args:
        in_size: Input size.
        out_size: Size of ``c`` and ``h``.
        n_ary: Number of children ``N``.

    Attributes:
        W_x (~chainer.links.Linear): ``((3 + N) * out_size, in_size)``, rows in blocks
            ``a, i, o, f_1, ..., f_N``.
        W_h1, ..., W_hN (~chainer.links.Linear): ``((3 + N) * out_size, out_size)`` (no bias).

    Example:
        >>> unit = L.NaryTreeLSTM(3, 4, n_ary=2)
        >>> c, h = unit(None, None, None, None, np.ones((2, 3), 'f'))   # a leaf
        >>> c, h = unit(c, c, h, h, np.ones((2, 3), 'f'))
        >>> h.shape
        (2, 4)
    """

    def __init__(self, in_size: int, out_size: int, n_ary: int = 2) -> None:
        where = type(self).__name__
        in_size = _state.check_size(in_size, "in_size", where)
        out_size = _state.check_size(out_size, "out_size", where)
        n_ary = _state.check_size(n_ary, "n_ary", where)
        super().__init__()
        self.in_size = in_size
        self.state_size = out_size
        self.n_ary = n_ary
        with self.init_scope():
            self.W_x = linear.Linear(in_size, (3 + n_ary) * out_size)
            for k in range(1, n_ary + 1):
                setattr(self, f"W_h{k}", linear.Linear(out_size, (3 + n_ary) * out_size, nobias=True))

    def forward(self, *cshsx: Any) -> tuple[variable.Variable, variable.Variable]:
        """``unit(c_1, ..., c_N, h_1, ..., h_N, x)``: the new ``(c, h)``, each of shape ``(B, out_size)``.

        A child state given as ``None`` is zero (a missing child); ``x`` given as ``None`` is zero.
        """
        where = type(self).__name__
        n = self.n_ary
        if len(cshsx) != 2 * n + 1:
            raise TypeError(f"{where}: expected {2 * n + 1} arguments (c_1..c_{n}, h_1..h_{n}, x), got {len(cshsx)}")
        cs, hs, x = list(cshsx[:n]), list(cshsx[n:-1]), cshsx[-1]
        batch, dtype = _batch_and_dtype(where, cs + hs, x)
        if x is None:
            x = _state.zeros_state(self, batch, self.in_size, dtype)
        pre = self.W_x(x)
        for k, h in enumerate(hs, start=1):
            if h is not None:
                pre += getattr(self, f"W_h{k}")(h)
        cs = [_state.zeros_state(self, batch, self.state_size, dtype) if c is None else c for c in cs]
        # The rows of the weights are already the gate blocks F.tree_lstm takes.
        return tree_lstm_function.tree_lstm(*cs, pre)


__all__ = ["ChildSumTreeLSTM", "NaryTreeLSTM"]
