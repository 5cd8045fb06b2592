"""N-ary Tree-LSTM cell as an activation function."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.utils import type_check


def _sigmoid(xp: Any, v: Any) -> Any:
    half = v.dtype.type(0.5)
    return xp.tanh(v * half) * half + half


def _gate_blocks(x: Any, n: int) -> list[Any]:
    """The ``n`` contiguous blocks of ``x`` along axis 1, as views."""
    r = x.reshape((x.shape[0], n, x.shape[1] // n) + x.shape[2:])
    return [r[:, g] for g in range(n)]


class TreeLSTM(function_node.FunctionNode):
    """``(c_1, ..., c_N, x) -> (c, h)``; ``x`` holds the gates in contiguous blocks ``a, i, o, f_1, ..., f_N``."""

    @property
    def label(self) -> str:
        return "TreeLSTM"

    def check_type_forward(self, in_types: Any) -> None:
        n_in = type_check.eval(in_types.size())
        if n_in < 2:
            raise type_check.InvalidType("in_types.size() >= 2 (c_1, ..., c_N, x)", f"in_types.size() == {n_in}")
        type_check._argname(in_types, tuple(f"c{k}" for k in range(1, n_in)) + ("x",))
        c_types, x_type = in_types[:-1], in_types[-1]
        n_ary = n_in - 1
        type_check.expect(x_type.dtype.kind == "f", x_type.ndim >= 2)
        for c_type in c_types:
            type_check.expect(
                c_type.dtype == x_type.dtype,
                c_type.ndim == x_type.ndim,
                c_type.shape[0] == x_type.shape[0],
                x_type.shape[1] == (3 + n_ary) * c_type.shape[1],
            )
            for i in range(2, type_check.eval(x_type.ndim)):
                type_check.expect(c_type.shape[i] == x_type.shape[i])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs(tuple(range(len(inputs))))
        cs, x = inputs[:-1], inputs[-1]
        xp = backend.get_array_module(x)
        gates = _gate_blocks(x, 3 + len(cs))
        a, i, o = gates[:3]
        c = xp.tanh(a) * _sigmoid(xp, i)
        for f, c_k in zip(gates[3:], cs):
            c = c + _sigmoid(xp, f) * c_k
        h = _sigmoid(xp, o) * xp.tanh(c)
        return utils.force_array(c, x.dtype), utils.force_array(h, x.dtype)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # Written with differentiable functions throughout, so double backprop works.
        from chainer.functions.activation import sigmoid, tanh
        from chainer.functions.array import concat, split_axis

        inputs = self.get_retained_inputs()
        cs, x = inputs[:-1], inputs[-1]
        n_ary = len(cs)
        gc, gh = grad_outputs
        xp = backend.get_array_module(x.array)
        if gc is None:
            gc = xp.zeros_like(cs[0].array)
        if gh is None:
            gh = xp.zeros_like(cs[0].array)
        gates = split_axis.split_axis(x, 3 + n_ary, axis=1)
        a, i, o = tanh.tanh(gates[0]), sigmoid.sigmoid(gates[1]), sigmoid.sigmoid(gates[2])
        fs = [sigmoid.sigmoid(f) for f in gates[3:]]
        c = a * i
        for f, c_k in zip(fs, cs):
            c = c + f * c_k
        t = tanh.tanh(c)
        co = gc + gh * o * (1 - t * t)
        result: list[Any] = []
        for index in indexes:
            if index < n_ary:
                result.append(co * fs[index])
            else:
                g_gates = [co * i * (1 - a * a), co * a * i * (1 - i), gh * t * o * (1 - o)]
                g_gates += [co * c_k * f * (1 - f) for f, c_k in zip(fs, cs)]
                result.append(concat.concat(g_gates, axis=1))
        return tuple(result)


def tree_lstm(*inputs: Any) -> tuple[variable.Variable, variable.Variable]:
    """N-ary Tree-LSTM unit (Tai et al., *Improved Semantic Representations From
    Tree-Structured Long Short-Term Memory Networks*, 2015).

    ``tree_lstm(c_1, ..., c_N, x)`` merges ``N`` children. Axis 1 of ``x`` holds the
    pre-activations of the ``3 + N`` gates in contiguous blocks of ``H`` columns, in
    the order ``a, i, o, f_1, ..., f_N`` (``x[:, g H + j]`` for gate ``g`` and unit
    ``j``, i.e. ``F.split_axis(x, 3 + N, axis=1)``; unlike :func:`lstm`, whose gates
    are interleaved per unit):

    .. math::
        c &= \\tanh(a) \\sigma(i) + \\sum_k \\sigma(f_k) c_k, \\\\
        h &= \\sigma(o) \\tanh(c).

    Args:
        inputs: The children's cell states ``c_1, ..., c_N`` (each of shape
            ``(B, H, ...)``) followed by ``x`` of shape ``(B, (3 + N) H, ...)``.

    Returns:
        ``(c, h)``, both of shape ``(B, H, ...)``.

    Example:
        >>> c1 = np.zeros((2, 3), 'f'); c2 = np.ones((2, 3), 'f'); x = np.zeros((2, 15), 'f')
        >>> c, h = F.tree_lstm(c1, c2, x)
        >>> c.array[0]
        array([0.5, 0.5, 0.5], dtype=float32)
        >>> x[:, 12:] = -100  # the block of f_2: the forget gate of c2 closes
        >>> c, h = F.tree_lstm(c1, c2, x)
        >>> c.array[0]
        array([0., 0., 0.], dtype=float32)
    """
    c, h = TreeLSTM().apply(inputs)
    return c, h


__all__ = ["tree_lstm"]
