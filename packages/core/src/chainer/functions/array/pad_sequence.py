"""Padding a list of sequences into one array."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

from chainer import backend, function_node, variable
from chainer.functions.array import _util
from chainer.utils import type_check


class PadSequence(function_node.FunctionNode):
    """Stack sequences of different lengths into ``(n, length, ...)``, padding the tails."""

    def __init__(self, length: int | None, padding: Any) -> None:
        self.length = length
        self.padding = padding

    def check_type_forward(self, in_types: Any) -> None:
        type_check.expect(in_types.size() > 0)
        first = in_types[0]
        type_check.expect(first.ndim >= 1)
        _util.expect_same_dtypes_and_shapes(in_types, skip_axis=0)
        if self.length is not None:
            length = type_check.make_variable(self.length, "length")
            for i in range(type_check.eval(in_types.size())):
                type_check.expect(in_types[i].shape[0] <= length)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        xp = backend.get_array_module(*inputs)
        lengths = [x.shape[0] for x in inputs]
        self._lengths = lengths
        length = max(lengths) if self.length is None else self.length
        first = inputs[0]
        y = xp.full((len(inputs), length) + first.shape[1:], self.padding, first.dtype)
        for i, x in enumerate(inputs):
            y[i, : x.shape[0]] = x
        return (y,)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.array import get_item, separate, split_axis

        gy = grad_outputs[0]
        lengths = self._lengths
        if all(n == gy.shape[1] for n in lengths):
            return separate.separate(gy, 0)
        # One gather of every unpadded row, then one split: two nodes for any batch size.
        rows = numpy.repeat(numpy.arange(len(lengths)), lengths)
        cols = numpy.concatenate([numpy.arange(n) for n in lengths])
        xp = backend.get_array_module(gy)
        flat = get_item.get_item(gy, (xp.asarray(rows), xp.asarray(cols)))
        return split_axis.split_axis(flat, tuple(numpy.cumsum(lengths)[:-1].tolist()), 0, force_tuple=True)


def pad_sequence(xs: Sequence[Any], length: int | None = None, padding: Any = 0) -> variable.Variable:
    """Pad sequences of different lengths to make one array.

    Args:
        xs: Variables or arrays of shapes ``(L_i, ...)`` that agree except for ``L_i``.
        length: Length of the second axis of the result; ``None`` uses ``max(L_i)``.
            It must not be smaller than any ``L_i``.
        padding: The value of the padded elements.

    Returns:
        A variable of shape ``(len(xs), length, ...)``.

    Example:
        >>> F.pad_sequence([np.array([1., 2.], 'f'), np.array([3.], 'f')], padding=-1).array
        array([[ 1.,  2.],
               [ 3., -1.]], dtype=float32)
    """
    if isinstance(xs, variable.Variable) or hasattr(xs, "dtype"):
        raise TypeError("chainer.functions.pad_sequence: xs must be a sequence of variables or arrays")
    if length is not None:
        length = _util.as_int(length, "chainer.functions.pad_sequence", "length")
    return PadSequence(length, padding).apply(tuple(xs))[0]


__all__ = ["pad_sequence"]
