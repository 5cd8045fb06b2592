"""Interleaved gate layouts of the LSTM-family activations.

``F.lstm`` and its relatives take the pre-activations of several gates packed in one
array whose axis 1 has size ``n * H``: the values of gate ``g`` for unit ``h`` sit at
index ``h * n + g`` (units outermost, gates innermost). :func:`split_gates` and
:func:`interleave_gates` convert between that layout and ``n`` separate arrays of
size ``H``; both are differentiable, each being the other's gradient.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer import backend, function_node, variable


def _gate_view(x: Any, n: int, axis: int) -> Any:
    shape = x.shape
    return x.reshape(shape[:axis] + (shape[axis] // n, n) + shape[axis + 1 :])


def split_gate_arrays(x: Any, n: int, axis: int = 1) -> list[Any]:
    """The ``n`` gate arrays of ``x`` as (strided) views, without recording a graph."""
    r = _gate_view(x, n, axis)
    index = (slice(None),) * (axis + 1)
    return [r[index + (g,)] for g in range(n)]


class SplitGates(function_node.FunctionNode):
    def __init__(self, n: int, axis: int) -> None:
        self._n = n
        self._axis = axis

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gates = split_gate_arrays(inputs[0], self._n, self._axis)
        self._gate_shape = gates[0].shape
        return tuple(gates)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        grads = grad_outputs
        if any(g is None for g in grads):
            some = next(g for g in grads if g is not None)
            xp = backend.get_array_module(some)
            grads = tuple(xp.zeros(self._gate_shape, some.dtype) if g is None else g for g in grads)
        return InterleaveGates(self._axis).apply(grads)


class InterleaveGates(function_node.FunctionNode):
    def __init__(self, axis: int) -> None:
        self._axis = axis

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        first = inputs[0]
        xp = backend.get_array_module(first)
        n = len(inputs)
        axis = self._axis
        out_shape = first.shape[:axis] + (first.shape[axis] * n,) + first.shape[axis + 1 :]
        y = xp.empty(out_shape, first.dtype)
        for view, x in zip(split_gate_arrays(y, n, axis), inputs):
            view[...] = x
        return (y,)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gates = SplitGates(len(self.inputs or ()), self._axis).apply(grad_outputs)
        return tuple(gates[i] for i in indexes)


def split_gates(x: Any, n: int, axis: int = 1) -> tuple[variable.Variable, ...]:
    """Split the interleaved gates of ``x`` into ``n`` variables (differentiable)."""
    return SplitGates(n, axis).apply((x,))


def interleave_gates(xs: Sequence[Any], axis: int = 1) -> variable.Variable:
    """Pack ``n`` gate variables of equal shape into the interleaved layout (differentiable)."""
    return InterleaveGates(axis).apply(tuple(xs))[0]
