"""Long short-term memory cell (one step of an LSTM)."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, function_node, utils, variable
from chainer.backends import cpu_kernels
from chainer.functions.activation import _gates
from chainer.functions.rnn import _cell
from chainer.utils import type_check

# The per-column scale of the pre-activations (1 for a, 1/2 for i, f, o), per
# (units, dtype, ndim), for NumPy arrays.
_GATE_SCALES: dict[tuple[int, Any, int], Any] = {}


def _gate_scale(xp: Any, x: Any) -> Any:
    key = (x.shape[1], x.dtype, x.ndim)
    scale = _GATE_SCALES.get(key) if xp is numpy else None
    if scale is None:
        scale = xp.tile(xp.asarray([1.0, 0.5, 0.5, 0.5], dtype=x.dtype), x.shape[1] // 4)
        scale = scale.reshape((x.shape[1],) + (1,) * (x.ndim - 2))
        if xp is numpy:
            scale.flags.writeable = False
            _GATE_SCALES[key] = scale
    return scale


def _activate_gates(x: Any) -> tuple[Any, Any, Any, Any]:
    """``tanh(a), sigmoid(i), sigmoid(f), sigmoid(o)`` of the interleaved pre-activations ``x``.

    One ``tanh`` over the whole array: ``sigmoid(v) = (tanh(v / 2) + 1) / 2``, so the
    sigmoid gates are scaled by one half before and mapped to ``(0, 1)`` after. Each
    pass runs over the whole contiguous array (a scale per column, and the sigmoid map
    applied to the ``a`` columns too, unused): NumPy's loops over the four interleaved
    gates of one unit, four elements long, took six times as long.
    """
    xp = backend.get_array_module(x)
    t = x * _gate_scale(xp, x)
    xp.tanh(t, out=t)
    half = x.dtype.type(0.5)
    s = t * half
    s += half
    shape = (x.shape[0], x.shape[1] // 4, 4) + x.shape[2:]
    t, s = t.reshape(shape), s.reshape(shape)
    return t[:, :, 0], s[:, :, 1], s[:, :, 2], s[:, :, 3]


def _zeros(template: Any, shape: tuple[int, ...] | None = None) -> Any:
    xp = backend.get_array_module(template)
    return xp.zeros(template.shape if shape is None else shape, template.dtype)


def _pad_rows(v: Any, start: int, n_rows: int) -> variable.Variable:
    """Place ``v`` at rows ``start:start + len(v)`` of a zero array with ``n_rows`` rows (differentiable)."""
    from chainer.functions.array import get_item

    shape = (n_rows,) + tuple(v.shape[1:])
    return get_item.GetItemGrad(slice(start, start + v.shape[0]), shape).apply((v,))[0]


class LSTM(function_node.FunctionNode):
    """One LSTM step: ``(c_prev, x) -> (c, h)`` with the gates of ``x`` interleaved as ``a, i, f, o``."""

    # The check reads only the inputs' types: apply() runs it once per input signature.
    _type_check_reads_inputs_only = True

    @property
    def label(self) -> str:
        return "LSTM"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("c_prev", "x"))
        c_type, x_type = in_types
        type_check.expect(
            c_type.dtype.kind == "f",
            x_type.dtype == c_type.dtype,
            c_type.ndim >= 2,
            x_type.ndim == c_type.ndim,
            x_type.shape[0] <= c_type.shape[0],
            x_type.shape[1] == 4 * c_type.shape[1],
        )
        for i in range(2, type_check.eval(c_type.ndim)):
            type_check.expect(x_type.shape[i] == c_type.shape[i])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        self.retain_outputs((0,))
        c_prev, x = inputs
        batch = x.shape[0]
        if type(x) is numpy.ndarray:
            kernel = cpu_kernels.get("lstm_forward")
            if kernel is not None:
                c, h = numpy.empty_like(c_prev), numpy.empty((batch,) + c_prev.shape[1:], c_prev.dtype)
                if kernel(c_prev, x, c, h):
                    return c, h
        xp = backend.get_array_module(x)
        a, i, f, o = _activate_gates(x)
        c = a * i + f * c_prev[:batch]
        h = o * xp.tanh(c)
        if batch < c_prev.shape[0]:
            # Rows of c_prev beyond the batch of x belong to finished sequences; they pass through.
            c = xp.concatenate([c, c_prev[batch:]], axis=0)
        return utils.force_array(c), utils.force_array(h)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        c_prev, x = self.get_retained_inputs()
        (c,) = self.get_retained_outputs()
        gc, gh = grad_outputs
        if gc is None:
            gc = _zeros(c_prev.array)
        if gh is None:
            gh = _zeros(x.array, (x.shape[0], x.shape[1] // 4) + x.shape[2:])
        return LSTMGrad().apply((c_prev, x, c, gc, gh))


class LSTMGrad(function_node.FunctionNode):
    """Gradients ``(gc_prev, gx)`` of :class:`LSTM` from ``(c_prev, x, c_next, gc, gh)``.

    ``c_next`` is the cell state the forward pass produced (``h = o * tanh(c_next)``);
    as an input of its own, the gradients with respect to it reach the forward graph
    through it, which makes the second-order gradients simple (:func:`lstm_grad_grad`).
    Rows of ``c_prev`` past the batch of ``x`` passed through the forward pass: their
    gradient is ``gc`` itself.
    """

    @property
    def label(self) -> str:
        return "LSTMGrad"

    def __call__(self, *inputs: Any) -> tuple[variable.Variable, ...]:
        # Chainer's LSTMGrad was an old-style Function, called like a function.
        return self.apply(inputs)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2, 3, 4))
        c_prev, x, c_next, gc, gh = inputs
        batch = x.shape[0]
        if type(x) is numpy.ndarray:
            kernel = cpu_kernels.get("lstm_backward")
            if kernel is not None:
                gc_prev, gx = numpy.empty_like(c_prev), numpy.empty_like(x)
                if kernel(c_prev, x, c_next, gc, gh, gc_prev, gx):
                    return gc_prev, gx
        xp = backend.get_array_module(x)
        a, i, f, o = _activate_gates(x)
        c_head = c_prev[:batch]
        tc = xp.tanh(c_next[:batch])
        # Total gradient reaching the new cell state: directly and through h = o * tanh(c).
        co = gc[:batch] + gh * o * (1 - tc * tc)
        gc_prev = xp.empty_like(c_prev)
        gc_prev[:batch] = co * f
        gc_prev[batch:] = gc[batch:]
        gx = xp.empty(x.shape, x.dtype)
        ga, gi, gf, go = _gates.split_gate_arrays(gx, 4)
        ga[...] = co * i * (1 - a * a)
        gi[...] = co * a * i * (1 - i)
        gf[...] = co * c_head * f * (1 - f)
        go[...] = gh * tc * o * (1 - o)
        return gc_prev, gx

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.activation import sigmoid, tanh

        c_prev, x, c_next, gc, gh = self.get_retained_inputs()
        ggc_prev, ggx = grad_outputs
        if ggc_prev is None:
            ggc_prev = _zeros(c_prev.array)
        if ggx is None:
            ggx = _zeros(x.array)
        batch, n_rows = x.shape[0], c_prev.shape[0]
        partial = batch < n_rows

        def head(v: Any) -> Any:
            return v[:batch] if partial else v

        a_in, i_in, f_in, o_in = _gates.split_gates(x, 4)
        a, i, f, o = tanh.tanh(a_in), sigmoid.sigmoid(i_in), sigmoid.sigmoid(f_in), sigmoid.sigmoid(o_in)
        ua, ui, uf, uo = _gates.split_gates(ggx, 4)
        t = tanh.tanh(head(c_next))
        (g_c_prev,), (g_a,), (g_i,), (g_f,), g_o, g_c, g_gc, g_gh = _cell.grad_of_grad(
            [a], [i], [f], o, [head(c_prev)], t, head(gc), gh, [head(ggc_prev)], [ua], [ui], [uf], uo
        )
        result: list[Any] = []
        for index in indexes:
            if index == 0:
                result.append(_pad_rows(g_c_prev, 0, n_rows) if partial else g_c_prev)
            elif index == 1:
                result.append(_gates.interleave_gates((g_a, g_i, g_f, g_o)))
            elif index == 2:
                result.append(_pad_rows(g_c, 0, n_rows) if partial else g_c)
            elif index == 3:
                if partial:
                    # The rows past the batch pass gc straight to gc_prev.
                    g_gc = _pad_rows(g_gc, 0, n_rows) + _pad_rows(ggc_prev[batch:], batch, n_rows)
                result.append(g_gc)
            else:
                result.append(g_gh)
        return tuple(result)


def lstm_grad_grad(
    c_prev: Any,
    a: Any,
    i: Any,
    f: Any,
    o: Any,
    c: Any,
    gc: Any,
    gh: Any,
    ggc_prev: Any,
    gga: Any,
    ggi: Any,
    ggf: Any,
    ggo: Any,
    gc_prev: Any,
    ga: Any,
    gi: Any,
    gf: Any,
    go: Any,
    gc_next: Any,
    ggc: Any,
    ggh: Any,
) -> tuple[Any, ...]:
    """Second-order gradients of an LSTM step on raw arrays, written into the last eight.

    :class:`LSTMGrad` maps ``(c_prev, x, c, gc, gh)`` to ``(gc_prev, gx)``. Given the
    gradients ``ggc_prev`` and ``gga, ggi, ggf, ggo`` (the four gate blocks of ``gx``'s
    gradient) of some scalar with respect to those outputs, this computes its gradients
    with respect to the inputs of :class:`LSTMGrad`: ``gc_prev`` (to ``c_prev``),
    ``ga, gi, gf, go`` (to the gate pre-activations in ``x``), ``gc_next`` (to ``c``),
    ``ggc`` (to ``gc``) and ``ggh`` (to ``gh``), and stores them in those arrays in place.

    Args:
        c_prev: Previous cell state (the rows the step updates).
        a, i, f, o: The gate pre-activations, as split from ``x``.
        c: The cell state the step produced.
        gc, gh: The gradients of the step's outputs ``c`` and ``h``.
        ggc_prev, gga, ggi, ggf, ggo: The gradients with respect to ``gc_prev`` and the
            gate blocks of ``gx``.
        gc_prev, ga, gi, gf, go, gc_next, ggc, ggh: Output arrays of the shape of ``c``.

    Returns:
        The output arrays, in that order.
    """
    xp = backend.get_array_module(c_prev)
    i, f, o = (_cell.sigmoid_array(xp, v) for v in (i, f, o))
    (g_c_prev,), (g_a,), (g_i,), (g_f,), g_o, g_c, g_gc, g_gh = _cell.grad_of_grad(
        [xp.tanh(a)], [i], [f], o, [c_prev], xp.tanh(c), gc, gh, [ggc_prev], [gga], [ggi], [ggf], ggo
    )
    outputs = (gc_prev, ga, gi, gf, go, gc_next, ggc, ggh)
    for out, value in zip(outputs, (g_c_prev, g_a, g_i, g_f, g_o, g_c, g_gc, g_gh)):
        out[...] = value
    return outputs


def lstm(c_prev: Any, x: Any) -> tuple[variable.Variable, variable.Variable]:
    """Long short-term memory unit as an activation function.

    With the pre-activations ``a, i, f, o`` taken from ``x`` (see below), it computes

    .. math::
        c &= \\tanh(a)\\,\\sigma(i) + \\sigma(f)\\, c_{prev}, \\\\
        h &= \\sigma(o) \\tanh(c).

    The four gates are interleaved along axis 1 of ``x``: for unit ``k``, ``a, i, f, o``
    are ``x[:, 4k], x[:, 4k+1], x[:, 4k+2], x[:, 4k+3]``. A linear layer producing ``x``
    therefore has its output rows in that order.

    ``x`` may have fewer rows than ``c_prev`` (sequences of decreasing length in a
    batch): the extra rows of ``c_prev`` are copied to ``c`` unchanged, and ``h`` has
    the batch size of ``x``.

    Args:
        c_prev: Previous cell state, shape ``(B, H, ...)``.
        x: Gate pre-activations, shape ``(B', 4H, ...)`` with ``B' <= B`` and the same dtype.

    Returns:
        ``(c, h)``: the new cell state, shape ``(B, H, ...)``, and the output, ``(B', H, ...)``.

    Example:
        >>> c = np.zeros((2, 3), 'f'); x = np.ones((2, 12), 'f')
        >>> c_new, h = F.lstm(c, x)
        >>> c_new.shape, h.shape
        ((2, 3), (2, 3))
    """
    c, h = LSTM().apply((c_prev, x))
    return c, h


__all__ = ["lstm"]
