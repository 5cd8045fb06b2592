"""The recurrence of one LSTM layer and direction as one graph node (used by ``F.n_step_lstm``).

:func:`~chainer.functions.n_step_lstm` projects the inputs of all time steps in one matrix
product. What remains per time step is ``G_t = X_t + h_{t-1} W_h^T`` followed by the LSTM
cell. Built from differentiable functions, that is three nodes per step, and the backward
computes the weight gradient ``dG_t^T h_{t-1}`` once per step (small matrix products, each
added into the previous sum). :class:`LSTMRecurrence` runs the whole loop in one node: its
backward loops over the steps in reverse for the gate gradients ``dG_t`` (only
``dG_t W_h`` is on the critical path), then computes the weight gradient of all steps as one
product ``dG^T H_prev``, and hands ``dG`` back so that the input projection's backward is one
product too.

Tolerance. The results are those of the composed path (:func:`lstm_step` on every step) up
to the order of floating-point sums: the gradient of ``W_h`` sums the time steps inside one
matrix product instead of adding per-step products, and each step's product ``h W_h^T`` is
taken with a contiguous copy of ``W_h^T``, a layout for which the BLAS may block its sum
differently from F.linear's (on the benchmark's 20 x 200 x 800 steps OpenBLAS gives the same
bits; on some shapes the outputs differ in the last bit). In float32 everything stays within
1e-6 of the largest entry of the composed path's results and of a float64 reference
(tests/core_tests/functions_tests/rnn_tests/test_lstm_recurrence.py).

Double backprop. When the backward itself is recorded (``enable_backprop`` on inside it), the
node rebuilds the composed graph on its retained inputs and differentiates that, so that
second-order gradients are exactly those of the composed functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

from chainer import backend, configuration, function_node, variable
from chainer.backends import cpu_kernels
from chainer.functions.rnn import _n_step, lstm
from chainer.utils import type_check


def lstm_step(w_h: Any) -> _n_step.Step:
    """The composed step of an LSTM: ``(X_t, h, c) -> (h', c')`` with the recurrent weight
    ``w_h`` (gates interleaved as :func:`~chainer.functions.lstm` takes them)."""
    from chainer.functions.connection import linear

    def step(projected: Any, h: Any, c: Any) -> tuple[Any, Any]:
        c, h = lstm.lstm(c, projected + linear.linear(h, w_h))
        return h, c

    return step


class _Stop(function_node.FunctionNode):
    """Identity between the retained inputs and the composed graph of the double-backprop path.

    :meth:`LSTMRecurrence.backward` differentiates that graph with :func:`chainer.grad`,
    whose traversal would otherwise go on past the inputs into the caller's graph
    (differentiating all of it, recorded). Closed while that runs, it ends the traversal;
    opened afterwards, it passes the gradients of the recorded backward on like an identity.
    """

    def __init__(self) -> None:
        self.open = False

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return inputs

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        if not self.open:
            return (None,) * len(indexes)
        return tuple(grad_outputs[i] for i in indexes)


class LSTMRecurrence(function_node.FunctionNode):
    """One LSTM layer and direction over time-major steps of batch sizes ``sizes``.

    Inputs: ``X`` (``sum(sizes)`` rows, ``4N`` interleaved gate columns: the input
    projection with the biases, time step after time step), ``h0`` and ``c0`` (``B >=
    sizes[0]`` rows of ``N``), ``W_h`` (``4N x N``). Step ``t`` advances the first
    ``sizes[t]`` rows of the state; ``reverse`` runs the steps from last to first.
    Outputs: ``Y`` (the ``h`` of every step, in the rows of ``X``), the final ``h`` and
    ``c`` (``B`` rows; rows a step never reached keep ``h0`` and ``c0``).
    """

    def __init__(self, sizes: Sequence[int], reverse: bool) -> None:
        self.sizes = tuple(sizes)
        self.reverse = reverse

    @property
    def label(self) -> str:
        return "LSTMRecurrence"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "h0", "c0", "w_h"))
        x_type, h_type, c_type, w_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            h_type.dtype == x_type.dtype,
            c_type.dtype == x_type.dtype,
            w_type.dtype == x_type.dtype,
            x_type.ndim == 2,
            h_type.ndim == 2,
            c_type.shape == h_type.shape,
            h_type.shape[0] >= self.sizes[0],
            x_type.shape[0] == sum(self.sizes),
            x_type.shape[1] == 4 * h_type.shape[1],
            w_type.shape == (x_type.shape[1], h_type.shape[1]),
        )

    def _steps(self) -> list[tuple[slice, int]]:
        """The rows of ``X`` and the batch size of each step, in the order the forward runs them."""
        steps = []
        start = 0
        for size in self.sizes:
            steps.append((slice(start, start + size), size))
            start += size
        return steps[::-1] if self.reverse else steps

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2, 3))
        x, h0, c0, w_h = inputs
        xp = backend.get_array_module(x)
        n_rows, n_units = x.shape[0], h0.shape[1]
        gates = xp.empty_like(x)
        # The states before and after each step, in the rows of X, for the backward.
        h_prev = xp.empty((n_rows, n_units), x.dtype)
        c_prev = xp.empty_like(h_prev)
        cells = xp.empty_like(h_prev)
        ys = xp.empty_like(h_prev)
        h, c = h0.copy(), c0.copy()
        # h W_h^T with W_h^T contiguous: OpenBLAS runs that form of a step's small product
        # faster than h.dot(W_h.T) or F.linear's W_h.dot(h.T) (the benchmark's 35 steps of
        # 20 x 200 x 800, one thread: 3.5 against 7.6 and 4.2 ms).
        w_t = xp.ascontiguousarray(w_h.T)
        kernel = cpu_kernels.get("lstm_forward") if type(x) is numpy.ndarray else None
        for rows, size in self._steps():
            hp, cp, g, cr, yr = h_prev[rows], c_prev[rows], gates[rows], cells[rows], ys[rows]
            hp[...] = h[:size]
            cp[...] = c[:size]
            xp.matmul(hp, w_t, out=g)
            g += x[rows]
            if kernel is None or not kernel(cp, g, cr, yr):
                cr[...], yr[...] = lstm.LSTM().forward((cp, g))
            h[:size] = yr
            c[:size] = cr
        self._saved = (gates, cells, h_prev, c_prev)
        return ys, h, c

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        if configuration.config.enable_backprop:
            return self._composed_backward(indexes, grad_outputs)
        gys, ghy, gcy = (None if g is None else g.array for g in grad_outputs)
        _, h0, c0, w_h = (v.array for v in self.get_retained_inputs())
        gates, cells, h_prev, c_prev = self._saved
        xp = backend.get_array_module(gates)
        # gh and gc hold the gradients of the state after the step being undone.
        gh = xp.zeros_like(h0) if ghy is None else ghy.copy()
        gc = xp.zeros_like(c0) if gcy is None else gcy.copy()
        gc_prev = xp.empty_like(gc)
        d_gates = xp.empty_like(gates)
        kernel = cpu_kernels.get("lstm_backward") if type(gates) is numpy.ndarray else None
        for rows, size in reversed(self._steps()):
            gh_t, gc_t, gc_p, dg = gh[:size], gc[:size], gc_prev[:size], d_gates[rows]
            if gys is not None:
                gh_t += gys[rows]
            cp, g, cr = c_prev[rows], gates[rows], cells[rows]
            if kernel is None or not kernel(cp, g, cr, gc_t, gh_t, gc_p, dg):
                gc_p[...], dg[...] = lstm.LSTMGrad().forward((cp, g, cr, gc_t, gh_t))
            gc_t[...] = gc_p
            xp.matmul(dg, w_h, out=gh_t)
        results = {0: d_gates, 1: gh, 2: gc}
        if 3 in indexes:
            # The weight gradient of all steps in one product.
            results[3] = d_gates.T.dot(h_prev)
        return tuple(variable.Variable(results[i], requires_grad=False) for i in indexes)

    def _composed_backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        """The recorded backward (double backprop): today's composed graph, rebuilt on the
        retained inputs and differentiated, so that its own gradients are those of the
        composed functions."""
        from chainer import _backprop
        from chainer.functions.array import split_axis

        stop = _Stop()
        x, h0, c0, w_h = stop.apply(self.get_retained_inputs())
        step_ends = numpy.cumsum(self.sizes)[:-1].tolist()
        steps = split_axis.split_axis(x, step_ends, 0) if step_ends else (x,)
        h, c, outputs = _n_step._run_direction(lstm_step(w_h), steps, h0, c0, self.sizes, self.reverse)
        ys = _n_step._concat_rows(outputs)
        pairs = [(y, g) for y, g in zip((ys, h, c), grad_outputs) if g is not None]
        inputs = (x, h0, c0, w_h)
        grads = _backprop.grad(
            [y for y, _ in pairs], [inputs[i] for i in indexes], [g for _, g in pairs], enable_double_backprop=True
        )
        stop.open = True
        return tuple(grads)


def lstm_recurrence(
    x: Any, h0: Any, c0: Any, w_h: Any, sizes: Sequence[int], reverse: bool
) -> tuple[variable.Variable, variable.Variable, variable.Variable]:
    """Run an LSTM layer's recurrence; see :class:`LSTMRecurrence`.

    Returns:
        ``(h, c, ys)``: the final states and the outputs of all steps as one matrix.
    """
    ys, h, c = LSTMRecurrence(sizes, reverse).apply((x, h0, c0, w_h))
    return h, c, ys
