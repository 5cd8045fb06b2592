"""S-LSTM cell (an LSTM with two children) as an activation function."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.functions.activation import _gates
from chainer.utils import type_check


def _sigmoid(xp: Any, v: Any) -> Any:
    half = v.dtype.type(0.5)
    return xp.tanh(v * half) * half + half


class SLSTM(function_node.FunctionNode):
    """``(c_prev1, c_prev2, x1, x2) -> (c, h)``; gates of ``x1`` and ``x2`` interleaved as ``a, i, f, o``."""

    @property
    def label(self) -> str:
        return "SLSTM"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("c_prev1", "c_prev2", "x1", "x2"))
        c1_type, c2_type, x1_type, x2_type = in_types
        type_check.expect(
            c1_type.dtype.kind == "f",
            c2_type.dtype == c1_type.dtype,
            x1_type.dtype == c1_type.dtype,
            x2_type.dtype == c1_type.dtype,
            c1_type.ndim >= 2,
            c2_type.shape == c1_type.shape,
            x2_type.shape == x1_type.shape,
            x1_type.ndim == c1_type.ndim,
            x1_type.shape[0] == c1_type.shape[0],
            x1_type.shape[1] == 4 * c1_type.shape[1],
        )
        for i in range(2, type_check.eval(c1_type.ndim)):
            type_check.expect(x1_type.shape[i] == c1_type.shape[i])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2, 3))
        c1, c2, x1, x2 = inputs
        xp = backend.get_array_module(x1)
        a1, i1, f1, o1 = _gates.split_gate_arrays(x1, 4)
        a2, i2, f2, o2 = _gates.split_gate_arrays(x2, 4)
        c = xp.tanh(a1 + a2) * _sigmoid(xp, i1 + i2) + _sigmoid(xp, f1) * c1 + _sigmoid(xp, f2) * c2
        h = _sigmoid(xp, o1 + o2) * xp.tanh(c)
        return utils.force_array(c, c1.dtype), utils.force_array(h, c1.dtype)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # Written with differentiable functions throughout, so double backprop works.
        from chainer.functions.activation import sigmoid, tanh

        c1, c2, x1, x2 = self.get_retained_inputs()
        gc, gh = grad_outputs
        xp = backend.get_array_module(c1.array)
        if gc is None:
            gc = xp.zeros_like(c1.array)
        if gh is None:
            gh = xp.zeros_like(c1.array)
        a1, i1, f1_in, o1 = _gates.split_gates(x1, 4)
        a2, i2, f2_in, o2 = _gates.split_gates(x2, 4)
        a = tanh.tanh(a1 + a2)
        i = sigmoid.sigmoid(i1 + i2)
        o = sigmoid.sigmoid(o1 + o2)
        f1 = sigmoid.sigmoid(f1_in)
        f2 = sigmoid.sigmoid(f2_in)
        t = tanh.tanh(a * i + f1 * c1 + f2 * c2)
        co = gc + gh * o * (1 - t * t)
        ga = co * i * (1 - a * a)
        gi = co * a * i * (1 - i)
        go = gh * t * o * (1 - o)
        result: list[Any] = []
        for index in indexes:
            if index == 0:
                result.append(co * f1)
            elif index == 1:
                result.append(co * f2)
            elif index == 2:
                result.append(_gates.interleave_gates((ga, gi, co * c1 * f1 * (1 - f1), go)))
            else:
                result.append(_gates.interleave_gates((ga, gi, co * c2 * f2 * (1 - f2), go)))
        return tuple(result)


def slstm(c_prev1: Any, c_prev2: Any, x1: Any, x2: Any) -> tuple[variable.Variable, variable.Variable]:
    """S-LSTM unit: an LSTM cell merging two child states (Zhu et al., *Long Short-Term
    Memory Over Tree Structures*, 2015).

    With the pre-activations ``a_k, i_k, f_k, o_k`` taken from ``x_k`` in the interleaved
    order of :func:`~chainer.functions.lstm` (``x_k[:, 4j + g]`` for unit ``j`` and gate
    ``g`` in ``a, i, f, o``):

    .. math::
        c &= \\tanh(a_1 + a_2) \\sigma(i_1 + i_2) + \\sigma(f_1) c_{prev1} + \\sigma(f_2) c_{prev2}, \\\\
        h &= \\sigma(o_1 + o_2) \\tanh(c).

    Args:
        c_prev1: Cell state of the first child, shape ``(B, H, ...)``.
        c_prev2: Cell state of the second child, same shape.
        x1: Gate pre-activations from the first child, shape ``(B, 4H, ...)``.
        x2: Gate pre-activations from the second child, same shape.

    Returns:
        ``(c, h)``, both of shape ``(B, H, ...)``.

    Example:
        >>> c = np.zeros((2, 3), 'f'); x = np.ones((2, 12), 'f')
        >>> c_new, h = F.slstm(c, c, x, x)
        >>> h.shape
        (2, 3)
    """
    c, h = SLSTM().apply((c_prev1, c_prev2, x1, x2))
    return c, h


__all__ = ["slstm"]
