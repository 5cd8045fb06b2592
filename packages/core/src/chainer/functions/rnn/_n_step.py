"""The shared loop of the n-step RNN functions (``F.n_step_lstm``, ``F.n_step_gru``,
``F.n_step_rnn`` and their bidirectional forms).

The functions take their input time-major, as Chainer does: ``xs[t]`` holds time step
``t`` of the ``B_t`` sequences still running, and ``B_t`` never grows with ``t`` (the
layout :func:`chainer.functions.transpose_sequence` produces from sequences sorted by
decreasing length). Every layer and direction concatenates the time steps into one
matrix, so the input projection of all steps is a single matrix product; the
recurrence then processes one time step at a time on the sequences still running
(finished rows are set aside going forward in time, and rows join from the initial
state going backward in time). All of it is built from differentiable functions, so
backward and double backward work; a cell type may instead run a layer's whole
recurrence as one graph node (the LSTM's, see ``_lstm_recurrence``).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from typing import Any

import numpy

from chainer import variable
from chainer.utils import argument, type_check

# A step maps (input projection of the step, h, c) to the new (h, c); c is None without a cell.
Step = Callable[[Any, Any, Any], tuple[Any, Any]]
# A recurrence runs one layer and direction: (input projection of all steps, h0, c0, batch
# sizes, reverse) -> (final h, final c, the outputs of all steps as one matrix).
Recurrence = Callable[[Any, Any, Any, Sequence[int], bool], tuple[Any, Any, Any]]


class CellSpec:
    """What distinguishes the cell types: the number of weight matrices per layer and
    direction, whether there is a cell state, and how weights become a step function.

    ``build(w, b)`` returns ``(input weight, input bias, step)``; with an input weight of
    ``None`` the step receives the layer's input itself instead of its projection, and
    ``n_input_weights=None`` leaves the weights' shapes to the step (a cell function
    given by the caller, see :func:`cell_function_spec`).

    ``build_recurrence(w, b)``, where given, returns ``(input weight, input bias,
    recurrence)`` and replaces the step-by-step loop: the recurrence runs all time steps
    of a layer and direction at once and computes what the steps of ``build`` would.
    """

    def __init__(
        self,
        name: str,
        n_weights: int,
        n_input_weights: int | None,
        has_cell: bool,
        build: Callable[[Sequence[Any], Sequence[Any]], tuple[Any, Any, Step]],
        build_recurrence: Callable[[Sequence[Any], Sequence[Any]], tuple[Any, Any, Recurrence]] | None = None,
    ) -> None:
        self.name = name
        self.n_weights = n_weights
        self.n_input_weights = n_input_weights
        self.has_cell = has_cell
        self.build = build
        self.build_recurrence = build_recurrence


def cell_function_spec(f: Callable[..., tuple[Any, Any]], n_weights: int, has_cell: bool) -> CellSpec:
    """A :class:`CellSpec` running ``f(x, h, c, w, b) -> (h, c)`` at every time step."""

    def build(w: Sequence[Any], b: Sequence[Any]) -> tuple[Any, Any, Step]:
        def step(x: Any, h: Any, c: Any) -> tuple[Any, Any]:
            h, c = f(x, h, c, w, b)
            return h, c if has_cell else None

        return None, None, step

    return CellSpec("cell function", n_weights, None, has_cell, build)


def _invalid(where: str, expect: str, actual: str) -> type_check.InvalidType:
    return type_check.InvalidType(
        expect,
        actual,
        msg=f"\nInvalid operation is performed in: {where} (Forward)\n\nExpect: {expect}\nActual: {actual}",
    )


def _array_of(x: Any) -> Any:
    return x.array if isinstance(x, variable.Variable) else x


def _check_args(
    where: str,
    spec: CellSpec,
    n_layers: Any,
    dropout_ratio: Any,
    hx: Any,
    cx: Any,
    ws: Any,
    bs: Any,
    xs: Any,
    directions: int,
) -> list[int]:
    """Validate everything up front, with messages naming the argument; return the batch sizes ``B_t``."""
    if not isinstance(n_layers, numbers.Integral) or isinstance(n_layers, bool) or n_layers < 1:
        raise ValueError(f"{where}: n_layers must be a positive integer, got {n_layers!r}")
    if not isinstance(dropout_ratio, numbers.Real) or isinstance(dropout_ratio, bool) or not 0 <= dropout_ratio < 1:
        raise ValueError(f"{where}: dropout_ratio must be a real number in [0, 1), got {dropout_ratio!r}")
    if not isinstance(xs, (list, tuple)) or len(xs) == 0:
        raise TypeError(
            f"{where}: xs must be a non-empty list of variables (one per time step, time-major), "
            f"got {type(xs).__name__ if not isinstance(xs, (list, tuple)) else 'an empty list'}"
        )
    if hx is None:
        raise TypeError(f"{where}: hx must be a variable of shape (n_layers * {directions}, batch, units), got None")
    h = _array_of(hx)
    n_states = n_layers * directions
    if h.ndim != 3:
        raise _invalid(where, "hx.ndim == 3", f"hx.ndim == {h.ndim} (hx.shape == {h.shape})")
    if h.dtype.kind != "f":
        raise _invalid(where, "hx.dtype.kind == f", f"hx.dtype == {h.dtype}")
    dtype = h.dtype
    if h.shape[0] != n_states:
        raise _invalid(where, f"hx.shape[0] == n_layers * {directions} == {n_states}", f"hx.shape == {h.shape}")
    n_units = h.shape[2]
    if spec.has_cell:
        if cx is None:
            raise TypeError(f"{where}: cx must be a variable of the shape of hx, got None")
        c = _array_of(cx)
        if c.shape != h.shape or c.dtype != dtype:
            raise _invalid(
                where,
                "cx.shape == hx.shape and cx.dtype == hx.dtype",
                f"cx: {c.shape} {c.dtype}, hx: {h.shape} {dtype}",
            )

    sizes: list[int] = []
    in_size = None
    for t, x in enumerate(xs):
        a = _array_of(x)
        if a.ndim != 2:
            raise _invalid(where, f"xs[{t}].ndim == 2 (batch, features)", f"xs[{t}].shape == {a.shape}")
        if a.dtype != dtype:
            raise _invalid(where, f"xs[{t}].dtype == hx.dtype", f"{a.dtype} != {dtype}")
        if in_size is None:
            in_size = a.shape[1]
        elif a.shape[1] != in_size:
            raise _invalid(where, f"xs[{t}].shape[1] == xs[0].shape[1]", f"{a.shape[1]} != {in_size}")
        if t == 0:
            if not 0 < a.shape[0] <= h.shape[1]:
                raise _invalid(
                    where, "0 < xs[0].shape[0] <= hx.shape[1]", f"xs[0].shape == {a.shape}, hx.shape == {h.shape}"
                )
        elif not 0 < a.shape[0] <= sizes[-1]:
            # Time-major input: a time step holds the sequences still running, never more.
            raise _invalid(
                where,
                f"0 < xs[{t}].shape[0] <= xs[{t - 1}].shape[0] (batch sizes must not increase over time; "
                "sort the sequences by decreasing length and use F.transpose_sequence)",
                f"xs[{t}].shape[0] == {a.shape[0]}, xs[{t - 1}].shape[0] == {sizes[-1]}",
            )
        sizes.append(a.shape[0])

    for name, params in (("ws", ws), ("bs", bs)):
        if not isinstance(params, (list, tuple)) or len(params) != n_states:
            got = len(params) if isinstance(params, (list, tuple)) else type(params).__name__
            raise ValueError(f"{where}: {name} must be a list of n_layers * {directions} = {n_states} lists, got {got}")
        for k, group in enumerate(params):
            if not isinstance(group, (list, tuple)) or len(group) != spec.n_weights:
                got = len(group) if isinstance(group, (list, tuple)) else type(group).__name__
                raise ValueError(f"{where}: {name}[{k}] must be a list of {spec.n_weights} arrays, got {got}")
    for k in range(n_states):
        if spec.n_input_weights is None:
            break
        layer_in = in_size if k < directions else n_units * directions
        for j in range(spec.n_weights):
            w = _array_of(ws[k][j])
            expected = (n_units, layer_in if j < spec.n_input_weights else n_units)
            if w.shape != expected:
                raise _invalid(where, f"ws[{k}][{j}].shape == {expected}", f"ws[{k}][{j}].shape == {w.shape}")
            b = _array_of(bs[k][j])
            if b.shape != (n_units,):
                raise _invalid(where, f"bs[{k}][{j}].shape == {(n_units,)}", f"bs[{k}][{j}].shape == {b.shape}")
            if w.dtype != dtype or b.dtype != dtype:
                raise _invalid(
                    where, f"ws[{k}][{j}].dtype == bs[{k}][{j}].dtype == hx.dtype", f"{w.dtype}, {b.dtype}, {dtype}"
                )
    return sizes


def _concat_rows(parts: Sequence[Any]) -> Any:
    from chainer.functions.array import concat

    return parts[0] if len(parts) == 1 else concat.concat(parts, axis=0)


def _run_direction(
    step: Step, gates: Sequence[Any], h0: Any, c0: Any, sizes: Sequence[int], reverse: bool
) -> tuple[Any, Any, list[Any]]:
    """Run one direction over the time steps; return the final ``h`` and ``c`` (all rows) and the step outputs."""
    from chainer.functions.array import split_axis

    n_rows = h0.shape[0]
    n_steps = len(sizes)
    outputs: list[Any] = [None] * n_steps
    h, c = h0, c0
    if not reverse:
        finished_h: list[Any] = []
        finished_c: list[Any] = []
        current = n_rows
        for t in range(n_steps):
            size = sizes[t]
            if size < current:
                # Rows size..current end here: their final states are set aside.
                h, h_done = split_axis.split_axis(h, [size], 0)
                finished_h.append(h_done)
                if c is not None:
                    c, c_done = split_axis.split_axis(c, [size], 0)
                    finished_c.append(c_done)
                current = size
            h, c = step(gates[t], h, c)
            outputs[t] = h
        if finished_h:
            h = _concat_rows([h, *finished_h[::-1]])
            if c is not None:
                c = _concat_rows([c, *finished_c[::-1]])
        return h, c, outputs

    # Backward in time the running set only grows; the rows that have not started yet
    # keep their initial state, taken from h0 piece by piece.
    cuts = sorted(set(sizes) - {n_rows})
    h_pieces = list(split_axis.split_axis(h0, cuts, 0)) if cuts else [h0]
    c_pieces = (list(split_axis.split_axis(c0, cuts, 0)) if cuts else [c0]) if c0 is not None else []
    h = h_pieces.pop(0)
    c = c_pieces.pop(0) if c0 is not None else None
    for t in reversed(range(n_steps)):
        if sizes[t] > h.shape[0]:
            h = _concat_rows([h, h_pieces.pop(0)])
            if c is not None:
                c = _concat_rows([c, c_pieces.pop(0)])
        h, c = step(gates[t], h, c)
        outputs[t] = h
    if h_pieces:
        h = _concat_rows([h, *h_pieces])
        if c is not None:
            c = _concat_rows([c, *c_pieces])
    return h, c, outputs


def n_step_rnn_base(
    where: str,
    spec: CellSpec,
    n_layers: Any,
    dropout_ratio: Any,
    hx: Any,
    cx: Any,
    ws: Any,
    bs: Any,
    xs: Any,
    use_bi_direction: bool,
) -> tuple[Any, Any, list[Any]]:
    """Run a stacked (bi)directional RNN on time-major ``xs``; return ``(hy, cy, ys)``
    with ``ys`` time-major (``cy`` is ``None`` without a cell)."""
    from chainer.functions.array import concat, separate, split_axis, stack
    from chainer.functions.connection import linear
    from chainer.functions.noise import dropout

    directions = 2 if use_bi_direction else 1
    sizes = _check_args(where, spec, n_layers, dropout_ratio, hx, cx, ws, bs, xs, directions)
    step_ends = numpy.cumsum(sizes)[:-1].tolist()
    h0s = separate.separate(hx, 0)
    c0s = separate.separate(cx, 0) if spec.has_cell else None

    # All time steps as one matrix of sum(B_t) rows, time step after time step.
    layer_input = _concat_rows(list(xs))
    hy: list[Any] = []
    cy: list[Any] = []
    ys: list[Any] = []
    for layer in range(n_layers):
        # Per direction, the step outputs as a list (step by step) or one matrix (a recurrence).
        direction_outputs: list[Any] = []
        for direction in range(directions):
            k = layer * directions + direction
            x = layer_input
            if layer > 0 and dropout_ratio > 0:
                # Dropout on the inputs of the upper layers only (identity at test time), a
                # mask of its own for each direction, drawn in time order: the numbers
                # Chainer 7.8.1 draws, so a program seeded with numpy.random.seed gets its masks.
                x = dropout.dropout(layer_input, dropout_ratio)
            c0 = c0s[k] if c0s is not None else None
            if spec.build_recurrence is not None:
                w_in, b_in, recurrence = spec.build_recurrence(ws[k], bs[k])
                projected = linear.linear(x, w_in, b_in)
                h, c, outputs = recurrence(projected, h0s[k], c0, sizes, direction == 1)
            else:
                w_in, b_in, step = spec.build(ws[k], bs[k])
                projected = x if w_in is None else linear.linear(x, w_in, b_in)
                gates = split_axis.split_axis(projected, step_ends, 0) if step_ends else (projected,)
                h, c, outputs = _run_direction(step, gates, h0s[k], c0, sizes, reverse=direction == 1)
            hy.append(h)
            cy.append(c)
            direction_outputs.append(outputs)
        if directions == 1 and layer == n_layers - 1:
            # The last layer's step outputs are the time-major ys.
            outputs = direction_outputs[0]
            if isinstance(outputs, list):
                ys = outputs
            else:
                ys = list(split_axis.split_axis(outputs, step_ends, 0)) if step_ends else [outputs]
        else:
            layer_input = concat.concat(
                [_concat_rows(out) if isinstance(out, list) else out for out in direction_outputs], axis=1
            )
    if directions == 2:
        ys = list(split_axis.split_axis(layer_input, step_ends, 0)) if step_ends else [layer_input]

    hy_stacked = stack.stack(hy, 0)
    cy_stacked = stack.stack(cy, 0) if spec.has_cell else None
    return hy_stacked, cy_stacked, ys


def check_kwargs(kwargs: dict[str, Any]) -> None:
    """Refuse the keyword arguments removed in Chainer v2 (and any other), as Chainer does.

    Called by the public functions themselves, so that a ``TypeError`` names them.
    """
    argument.check_unexpected_kwargs(
        kwargs,
        train="train argument is not supported anymore. Use chainer.using_config",
        use_cudnn="use_cudnn argument is not supported anymore. Use chainer.using_config",
    )
