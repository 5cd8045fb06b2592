"""Private array helpers of the n-step RNNs: concatenation, splitting, and packing of
variable-length sequences.

``concat`` and ``split_axis`` are minimal differentiable versions kept here until the
public ``F.concat`` / ``F.split_axis`` exist; each is the other's gradient.

Packing lays out a batch of sequences sorted by decreasing length in time-major order
(the layout ``F.transpose_sequence`` produces, but in one matrix): the rows of time step
``t`` are the ``batch_sizes[t]`` sequences that are longer than ``t``, in batch order.
One gather converts between that layout and the concatenated sequences, so an RNN can
apply its input projection to all time steps with a single matrix product.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

from chainer import backend, function_node, variable


class Concat(function_node.FunctionNode):
    def __init__(self, axis: int) -> None:
        self.axis = axis

    @property
    def label(self) -> str:
        return "Concat"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self._sizes = [x.shape[self.axis] for x in inputs]
        xp = backend.get_array_module(inputs[0])
        return (xp.concatenate(inputs, axis=self.axis),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        offsets = numpy.cumsum(self._sizes)[:-1].tolist()
        grads = SplitAxis(offsets, self.axis).apply(grad_outputs)
        return tuple(grads[i] for i in indexes)


class SplitAxis(function_node.FunctionNode):
    def __init__(self, indices: Sequence[int], axis: int) -> None:
        self.indices = list(indices)
        self.axis = axis

    @property
    def label(self) -> str:
        return "SplitAxis"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        self._shape = x.shape
        xp = backend.get_array_module(x)
        return tuple(xp.split(x, self.indices, axis=self.axis))

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        grads = grad_outputs
        if any(g is None for g in grads):
            some = next(g for g in grads if g is not None)
            xp = backend.get_array_module(some)
            bounds = [0, *self.indices, self._shape[self.axis]]
            filled = []
            for k, g in enumerate(grads):
                if g is None:
                    shape = list(self._shape)
                    shape[self.axis] = bounds[k + 1] - bounds[k]
                    g = xp.zeros(shape, some.dtype)
                filled.append(g)
            grads = tuple(filled)
        return Concat(self.axis).apply(grads)


def concat(xs: Sequence[Any], axis: int) -> variable.Variable:
    """Concatenate variables along ``axis`` (differentiable)."""
    if len(xs) == 1:
        return variable.as_variable(xs[0])
    return Concat(axis).apply(tuple(xs))[0]


def split_axis(x: Any, indices: Sequence[int], axis: int) -> tuple[variable.Variable, ...]:
    """Split ``x`` before each of ``indices`` along ``axis`` (differentiable)."""
    if not indices:
        return (variable.as_variable(x),)
    return SplitAxis(indices, axis).apply((x,))


def batch_sizes(lengths: Sequence[int]) -> list[int]:
    """``batch_sizes[t]``: how many of the sequences (sorted by decreasing length) are longer than ``t``."""
    lengths_array = numpy.asarray(lengths, dtype=numpy.int64)
    if lengths_array.size == 0 or lengths_array.max() == 0:
        return []
    steps = numpy.arange(int(lengths_array.max()))
    return (steps[:, None] < lengths_array[None, :]).sum(axis=1).tolist()


def _time_major_order(lengths: Sequence[int]) -> numpy.ndarray | None:
    """Rows of the concatenated sequences in time-major order (``None`` if already in it)."""
    lengths_array = numpy.asarray(lengths, dtype=numpy.int64)
    if len(lengths_array) <= 1 or lengths_array.max() <= 1:
        return None
    starts = numpy.concatenate(([0], numpy.cumsum(lengths_array)[:-1]))
    steps, seqs = numpy.nonzero(numpy.arange(int(lengths_array.max()))[:, None] < lengths_array[None, :])
    return starts[seqs] + steps


def pack(xs: Sequence[Any], lengths: Sequence[int]) -> variable.Variable:
    """The sequences ``xs`` (each ``(length, ...)``) as one time-major matrix of ``sum(lengths)`` rows."""
    flat = concat(xs, axis=0)
    order = _time_major_order(lengths)
    return flat if order is None else flat[order]


def unpack(packed: Any, lengths: Sequence[int]) -> list[variable.Variable]:
    """Inverse of :func:`pack`: the per-sequence variables of a time-major matrix."""
    order = _time_major_order(lengths)
    flat = packed if order is None else packed[numpy.argsort(order)]
    ends = numpy.cumsum(lengths)[:-1].tolist()
    return list(split_axis(flat, ends, axis=0))
