"""S-LSTM cell (an LSTM with two children)."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.functions.activation import _gates
from chainer.functions.rnn import _cell
from chainer.utils import type_check


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
        self.retain_outputs((0,))
        c1, c2, x1, x2 = inputs
        xp = backend.get_array_module(x1)
        (a1, i1, f1), (a2, i2, f2), o = _activated_gates(xp, x1, x2)
        c = a1 * i1 + a2 * i2 + f1 * c1 + f2 * c2
        h = o * xp.tanh(c)
        return utils.force_array(c, c1.dtype), utils.force_array(h, c1.dtype)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        c1, c2, x1, x2 = self.get_retained_inputs()
        (c,) = self.get_retained_outputs()
        gc, gh = grad_outputs
        xp = backend.get_array_module(c1.array)
        if gc is None:
            gc = xp.zeros_like(c1.array)
        if gh is None:
            gh = xp.zeros_like(c1.array)
        grads = SLSTMGrad().apply((c1, c2, x1, x2, c, gc, gh))
        return tuple(grads[i] for i in indexes)


def _activated_gates(xp: Any, x1: Any, x2: Any) -> tuple[tuple[Any, Any, Any], tuple[Any, Any, Any], Any]:
    """``(a1, i1, f1), (a2, i2, f2), o`` of the cell from the raw arrays ``x1`` and ``x2``."""
    a1, i1, f1, o1 = _gates.split_gate_arrays(x1, 4)
    a2, i2, f2, o2 = _gates.split_gate_arrays(x2, 4)
    sig = _cell.sigmoid_array
    return (xp.tanh(a1), sig(xp, i1), sig(xp, f1)), (xp.tanh(a2), sig(xp, i2), sig(xp, f2)), sig(xp, o1 + o2)


class SLSTMGrad(function_node.FunctionNode):
    """Gradients ``(gc_prev1, gc_prev2, gx1, gx2)`` of :class:`SLSTM` from
    ``(c_prev1, c_prev2, x1, x2, c_next, gc, gh)``.

    ``c_next`` is the cell state the forward pass produced, an input of its own (as for
    :class:`~chainer.functions.rnn.lstm.LSTMGrad`).
    """

    @property
    def label(self) -> str:
        return "SLSTMGrad"

    def __call__(self, *inputs: Any) -> tuple[variable.Variable, ...]:
        # Chainer's SLSTMGrad was an old-style Function, called like a function.
        return self.apply(inputs)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs(tuple(range(7)))
        c1, c2, x1, x2, c_next, gc, gh = inputs
        xp = backend.get_array_module(x1)
        children = _activated_gates(xp, x1, x2)
        o = children[2]
        t = xp.tanh(c_next)
        co = gc + gh * o * (1 - t * t)
        go = gh * t * o * (1 - o)
        gx1 = xp.empty(x1.shape, x1.dtype)
        gx2 = xp.empty(x2.shape, x2.dtype)
        for gx, (a, i, f), c_k in zip((gx1, gx2), children[:2], (c1, c2)):
            g_a, g_i, g_f, g_o = _gates.split_gate_arrays(gx, 4)
            g_a[...] = co * i * (1 - a * a)
            g_i[...] = co * a * i * (1 - i)
            g_f[...] = co * c_k * f * (1 - f)
            # Both children share o (their pre-activations are summed).
            g_o[...] = go
        f1, f2 = children[0][2], children[1][2]
        return utils.force_array(co * f1, c1.dtype), utils.force_array(co * f2, c1.dtype), gx1, gx2

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.activation import sigmoid, tanh

        c1, c2, x1, x2, c_next, gc, gh = self.get_retained_inputs()
        xp = backend.get_array_module(c1.array)
        u1, u2, ggx1, ggx2 = (
            xp.zeros_like(ref.array) if g is None else g for g, ref in zip(grad_outputs, (c1, c2, x1, x2))
        )
        a1, i1, f1, o1 = _gates.split_gates(x1, 4)
        a2, i2, f2, o2 = _gates.split_gates(x2, 4)
        ua1, ui1, uf1, uo1 = _gates.split_gates(ggx1, 4)
        ua2, ui2, uf2, uo2 = _gates.split_gates(ggx2, 4)
        sig = sigmoid.sigmoid
        (g_c1, g_c2), (g_a1, g_a2), (g_i1, g_i2), (g_f1, g_f2), g_o, g_c, g_gc, g_gh = _cell.grad_of_grad(
            [tanh.tanh(a1), tanh.tanh(a2)],
            [sig(i1), sig(i2)],
            [sig(f1), sig(f2)],
            sig(o1 + o2),
            [c1, c2],
            tanh.tanh(c_next),
            gc,
            gh,
            [u1, u2],
            [ua1, ua2],
            [ui1, ui2],
            [uf1, uf2],
            uo1 + uo2,
        )
        grads = (
            g_c1,
            g_c2,
            _gates.interleave_gates((g_a1, g_i1, g_f1, g_o)),
            _gates.interleave_gates((g_a2, g_i2, g_f2, g_o)),
            g_c,
            g_gc,
            g_gh,
        )
        return tuple(grads[index] for index in indexes)


def slstm_grad_grad(
    c_prev1: Any,
    a1: Any,
    i1: Any,
    f1: Any,
    c_prev2: Any,
    a2: Any,
    i2: Any,
    f2: Any,
    o: Any,
    c: Any,
    gc: Any,
    gh: Any,
    ggc_prev1: Any,
    gga1: Any,
    ggi1: Any,
    ggf1: Any,
    ggo1: Any,
    ggc_prev2: Any,
    gga2: Any,
    ggi2: Any,
    ggf2: Any,
    ggo2: Any,
) -> tuple[Any, ...]:
    """Second-order gradients of an S-LSTM step on raw arrays.

    :class:`SLSTMGrad` maps ``(c_prev1, c_prev2, x1, x2, c, gc, gh)`` to
    ``(gc_prev1, gc_prev2, gx1, gx2)``. Given the gradients of some scalar with respect to
    those outputs (``ggc_prev1``, ``ggc_prev2`` and the gate blocks ``gga1 ... ggo2`` of
    ``gx1`` and ``gx2``), this returns its gradients with respect to the inputs.

    Args:
        c_prev1, c_prev2: The children's cell states.
        a1, i1, f1, a2, i2, f2: The gate pre-activations, as split from ``x1`` and ``x2``.
        o: The output gate's pre-activation, ``o1 + o2``.
        c: The cell state the step produced.
        gc, gh: The gradients of the step's outputs ``c`` and ``h``.
        ggc_prev1, gga1, ggi1, ggf1, ggo1, ggc_prev2, gga2, ggi2, ggf2, ggo2: The gradients
            with respect to the outputs of :class:`SLSTMGrad`.

    Returns:
        ``(g_c_prev1, g_a1, g_i1, g_f1, g_c_prev2, g_a2, g_i2, g_f2, g_o, g_c, g_gc,
        g_gh)``: with respect to the children's states and gate pre-activations (in the
        order of the arguments), the output gate's pre-activation (that of ``o1`` and of
        ``o2`` alike), ``c``, ``gc`` and ``gh``.
    """
    xp = backend.get_array_module(c_prev1)
    sig = _cell.sigmoid_array
    (g_c1, g_c2), (g_a1, g_a2), (g_i1, g_i2), (g_f1, g_f2), g_o, g_c, g_gc, g_gh = _cell.grad_of_grad(
        [xp.tanh(a1), xp.tanh(a2)],
        [sig(xp, i1), sig(xp, i2)],
        [sig(xp, f1), sig(xp, f2)],
        sig(xp, o),
        [c_prev1, c_prev2],
        xp.tanh(c),
        gc,
        gh,
        [ggc_prev1, ggc_prev2],
        [gga1, gga2],
        [ggi1, ggi2],
        [ggf1, ggf2],
        ggo1 + ggo2,
    )
    return g_c1, g_a1, g_i1, g_f1, g_c2, g_a2, g_i2, g_f2, g_o, g_c, g_gc, g_gh


def slstm(c_prev1: Any, c_prev2: Any, x1: Any, x2: Any) -> tuple[variable.Variable, variable.Variable]:
    """S-LSTM unit: an LSTM cell merging two child states (Zhu et al., *Long Short-Term
    Memory Over Tree Structures*, 2015).

    With the pre-activations ``a_k, i_k, f_k, o_k`` taken from ``x_k`` in the interleaved
    order of :func:`~chainer.functions.lstm` (``x_k[:, 4j + g]`` for unit ``j`` and gate
    ``g`` in ``a, i, f, o``):

    .. math::
        c &= \\tanh(a_1) \\sigma(i_1) + \\tanh(a_2) \\sigma(i_2)
             + \\sigma(f_1) c_{prev1} + \\sigma(f_2) c_{prev2}, \\\\
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
