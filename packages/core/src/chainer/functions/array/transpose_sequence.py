"""Transposing a batch of sequences into a sequence of batches."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

from chainer import backend, function_node, variable
from chainer.functions.array import _util
from chainer.utils import type_check


class TransposeSequence(function_node.FunctionNode):
    """``ys[t][i] = xs[i][t]`` for sequences ``xs`` sorted by decreasing length; the
    gradient is the same transposition of the output gradients."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() > 0)
        type_check.expect(in_types[0].ndim >= 1)
        _util.expect_same_dtypes_and_shapes(in_types, skip_axis=0)
        for i in range(1, type_check.eval(in_types.size())):
            type_check.expect(in_types[i].shape[0] <= in_types[i - 1].shape[0])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        xp = backend.get_array_module(*inputs)
        lengths = numpy.array([x.shape[0] for x in inputs])
        self._dtype = inputs[0].dtype
        self._n_inputs = len(inputs)
        steps = int(lengths[0])
        starts = numpy.concatenate(([0], numpy.cumsum(lengths)[:-1]))
        # Time-major order of the rows of the concatenated inputs, gathered at once.
        t = numpy.arange(steps)[:, None]
        order = (starts[None, :] + t)[t < lengths[None, :]]
        batch_sizes = (t < lengths[None, :]).sum(axis=1)
        gathered = xp.concatenate(inputs, axis=0)[xp.asarray(order)]
        ys = xp.split(gathered, numpy.cumsum(batch_sizes)[:-1].tolist(), axis=0)
        self._shapes = [y.shape for y in ys]
        return tuple(ys)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        xp = _util.array_module_of(grad_outputs)
        gys = _util.zeros_for_none(grad_outputs, self._shapes, self._dtype, xp)
        gxs = TransposeSequence().apply(tuple(gys))
        # Sequences of length zero (last, as lengths are sorted) reappear as empty gradients.
        empty = xp.zeros((0,) + self._shapes[0][1:], self._dtype)
        return gxs + (empty,) * (self._n_inputs - len(gxs))


def transpose_sequence(xs: Sequence[Any]) -> tuple[Any, ...]:
    """Transpose a list of sequences into a list of time steps.

    Args:
        xs: Variables or arrays of shapes ``(L_i, ...)`` sorted by non-increasing
            ``L_i``; the other dimensions and the dtype agree.

    Returns:
        A tuple of ``L_0`` variables; the ``t``-th has shape ``(B_t, ...)`` and holds
        ``xs[i][t]`` for the ``B_t`` sequences longer than ``t``. An empty ``xs`` (or
        sequences of length zero) gives an empty tuple.

    Example:
        >>> ys = F.transpose_sequence([np.array([1., 2.], 'f'), np.array([3.], 'f')])
        >>> [y.array for y in ys]
        [array([1., 3.], dtype=float32), array([2.], dtype=float32)]
    """
    if isinstance(xs, variable.Variable) or hasattr(xs, "dtype"):
        raise TypeError("chainer.functions.transpose_sequence: xs must be a sequence of variables or arrays")
    xs = tuple(xs)
    if not xs or (xs[0].ndim >= 1 and xs[0].shape[0] == 0):
        return ()
    return TransposeSequence().apply(xs)


__all__ = ["transpose_sequence"]
