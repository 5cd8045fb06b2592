"""The shared loop of the n-step RNN functions (``F.n_step_lstm``, ``F.n_step_gru``,
``F.n_step_rnn`` and their bidirectional forms).

Every layer and direction runs over the packed, time-major layout of
:mod:`._sequence`: the input projection of all time steps is one matrix product, and the
recurrence then processes one time step at a time on the sequences still running
(their number never grows forward in time, so finished rows are set aside, and never
shrinks backward in time, so rows join from the initial state as they start). All of
it is built from differentiable functions, so backward and double backward work.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from typing import Any

import numpy

from chainer import backend, variable
from chainer.functions.rnn import _sequence
from chainer.utils import argument, type_check

# A step maps (input projection of the step, h, c) to the new (h, c); c is None without a cell.
Step = Callable[[Any, Any, Any], tuple[Any, Any]]


class CellSpec:
    """What distinguishes the cell types: the number of weight matrices per layer and
    direction, whether there is a cell state, and how weights become a step function."""

    def __init__(
        self,
        name: str,
        n_weights: int,
        n_input_weights: int,
        has_cell: bool,
        build: Callable[[Sequence[Any], Sequence[Any]], tuple[Any, Any, Step]],
    ) -> None:
        self.name = name
        self.n_weights = n_weights
        self.n_input_weights = n_input_weights
        self.has_cell = has_cell
        # build(w, b) -> (input weight, input bias, step function)
        self.build = build


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
    """Validate everything up front, with messages naming the argument; return the lengths."""
    if not isinstance(n_layers, numbers.Integral) or isinstance(n_layers, bool) or n_layers < 1:
        raise ValueError(f"{where}: n_layers must be a positive integer, got {n_layers!r}")
    if not isinstance(dropout_ratio, numbers.Real) or isinstance(dropout_ratio, bool) or not 0 <= dropout_ratio < 1:
        raise ValueError(f"{where}: dropout_ratio must be a real number in [0, 1), got {dropout_ratio!r}")
    if not isinstance(xs, (list, tuple)) or len(xs) == 0:
        raise TypeError(
            f"{where}: xs must be a non-empty list of variables (one per sequence), got {type(xs).__name__}"
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
    if h.shape[1] != len(xs):
        raise _invalid(where, f"hx.shape[1] == len(xs) == {len(xs)}", f"hx.shape == {h.shape}")
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

    lengths = []
    in_size = None
    for i, x in enumerate(xs):
        a = _array_of(x)
        if a.ndim != 2:
            raise _invalid(where, f"xs[{i}].ndim == 2 (length, features)", f"xs[{i}].shape == {a.shape}")
        if a.dtype != dtype:
            raise _invalid(where, f"xs[{i}].dtype == hx.dtype", f"{a.dtype} != {dtype}")
        if in_size is None:
            in_size = a.shape[1]
        elif a.shape[1] != in_size:
            raise _invalid(where, f"xs[{i}].shape[1] == xs[0].shape[1]", f"{a.shape[1]} != {in_size}")
        if lengths and a.shape[0] > lengths[-1]:
            raise ValueError(
                f"{where}: xs must be sorted by length in descending order; xs[{i}] has length {a.shape[0]} "
                f"after a sequence of length {lengths[-1]}"
            )
        lengths.append(a.shape[0])

    for name, params in (("ws", ws), ("bs", bs)):
        if not isinstance(params, (list, tuple)) or len(params) != n_states:
            got = len(params) if isinstance(params, (list, tuple)) else type(params).__name__
            raise ValueError(f"{where}: {name} must be a list of n_layers * {directions} = {n_states} lists, got {got}")
        for k, group in enumerate(params):
            if not isinstance(group, (list, tuple)) or len(group) != spec.n_weights:
                got = len(group) if isinstance(group, (list, tuple)) else type(group).__name__
                raise ValueError(f"{where}: {name}[{k}] must be a list of {spec.n_weights} arrays, got {got}")
    for k in range(n_states):
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
    return lengths


def _run_direction(
    step: Step, gates: Sequence[Any], h0: Any, c0: Any, sizes: Sequence[int], reverse: bool
) -> tuple[Any, Any, list[Any]]:
    """Run one direction over the time steps; return the final ``h`` and ``c`` (all rows) and the step outputs."""
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
                h, h_done = _sequence.split_axis(h, [size], 0)
                finished_h.append(h_done)
                if c is not None:
                    c, c_done = _sequence.split_axis(c, [size], 0)
                    finished_c.append(c_done)
                current = size
            h, c = step(gates[t], h, c)
            outputs[t] = h
        if finished_h:
            h = _sequence.concat([h, *finished_h[::-1]], 0)
            if c is not None:
                c = _sequence.concat([c, *finished_c[::-1]], 0)
        return h, c, outputs

    # Backward in time the running set only grows; the rows that have not started yet
    # keep their initial state, taken from h0 piece by piece.
    cuts = sorted(set(sizes) - {n_rows})
    h_pieces = list(_sequence.split_axis(h0, cuts, 0))
    c_pieces = list(_sequence.split_axis(c0, cuts, 0)) if c0 is not None else []
    h = h_pieces.pop(0)
    c = c_pieces.pop(0) if c0 is not None else None
    for t in reversed(range(n_steps)):
        if sizes[t] > h.shape[0]:
            h = _sequence.concat([h, h_pieces.pop(0)], 0)
            if c is not None:
                c = _sequence.concat([c, c_pieces.pop(0)], 0)
        h, c = step(gates[t], h, c)
        outputs[t] = h
    if h_pieces:
        h = _sequence.concat([h, *h_pieces], 0)
        if c is not None:
            c = _sequence.concat([c, *c_pieces], 0)
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
    """Run a stacked (bi)directional RNN; return ``(hy, cy, ys)`` (``cy`` is ``None`` without a cell)."""
    from chainer.functions.array import get_item, reshape
    from chainer.functions.connection import linear
    from chainer.functions.noise import dropout

    directions = 2 if use_bi_direction else 1
    lengths = _check_args(where, spec, n_layers, dropout_ratio, hx, cx, ws, bs, xs, directions)
    sizes = _sequence.batch_sizes(lengths)
    step_ends = numpy.cumsum(sizes)[:-1].tolist()
    hx = variable.as_variable(hx)
    if spec.has_cell:
        cx = variable.as_variable(cx)

    layer_input = _sequence.pack(xs, lengths)
    hy: list[Any] = []
    cy: list[Any] = []
    for layer in range(n_layers):
        if layer > 0 and dropout_ratio > 0:
            # Dropout on the inputs of the upper layers only (identity at test time).
            layer_input = dropout.dropout(layer_input, dropout_ratio)
        direction_outputs = []
        for direction in range(directions):
            k = layer * directions + direction
            w_in, b_in, step = spec.build(ws[k], bs[k])
            projected = linear.linear(layer_input, w_in, b_in)
            gates = _sequence.split_axis(projected, step_ends, 0) if sizes else ()
            h0 = get_item.get_item(hx, k)
            c0 = get_item.get_item(cx, k) if spec.has_cell else None
            h, c, outputs = _run_direction(step, gates, h0, c0, sizes, reverse=direction == 1)
            hy.append(h)
            cy.append(c)
            if outputs:
                direction_outputs.append(_sequence.concat(outputs, 0))
            else:
                xp = backend.get_array_module(hx.array)
                direction_outputs.append(variable.Variable(xp.zeros((0, hx.shape[2]), hx.dtype)))
        layer_input = _sequence.concat(direction_outputs, 1)

    ys = _sequence.unpack(layer_input, lengths)
    hy_stacked = _sequence.concat([reshape.reshape(h, (1,) + h.shape) for h in hy], 0)
    cy_stacked = _sequence.concat([reshape.reshape(c, (1,) + c.shape) for c in cy], 0) if spec.has_cell else None
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
