"""Repeating the elements of a variable."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, function_node, variable
from chainer.functions.array import _util
from chainer.utils import type_check


class Repeat(function_node.FunctionNode):
    """:func:`numpy.repeat`; the gradient sums each group of copies."""

    def __init__(self, repeats: int | tuple[int, ...], axis: int | None) -> None:
        self.repeats = repeats
        self.axis = axis

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type = in_types[0]
        if self.axis is not None:
            _util.expect_axis(x_type, self.axis)
        if isinstance(self.repeats, tuple):
            length = (
                type_check.make_variable(_util.eval_size(x_type), "x.size")
                if self.axis is None
                else x_type.shape[self.axis]
            )
            n = type_check.make_variable(len(self.repeats), "len(repeats)")
            type_check.expect(n == length)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        self._in_shape = x.shape
        xp = backend.get_array_module(x)
        repeats = self.repeats if isinstance(self.repeats, int) else xp.asarray(self.repeats)
        return (xp.repeat(x, repeats, self.axis),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return RepeatGrad(self.repeats, self.axis, self._in_shape).apply(grad_outputs)


class RepeatGrad(function_node.FunctionNode):
    """Sum each group of repeated elements of the output gradient; the gradient of this is
    :func:`repeat` again."""

    def __init__(self, repeats: int | tuple[int, ...], axis: int | None, in_shape: tuple[int, ...]) -> None:
        self.repeats = repeats
        self.axis = axis
        self._in_shape = in_shape

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy = inputs[0]
        xp = backend.get_array_module(gy)
        if self.axis is None:
            shape = (int(numpy.prod(self._in_shape, dtype=numpy.int64)),)
            axis = 0
        else:
            shape = self._in_shape
            axis = self.axis % len(shape)
        if isinstance(self.repeats, int):
            r = self.repeats
            grouped = gy.reshape(shape[:axis] + (shape[axis], r) + shape[axis + 1 :])
            gx = grouped.sum(axis=axis + 1)
        else:
            # Uneven groups: scatter-add each copy to its source position.
            source = numpy.repeat(numpy.arange(shape[axis]), self.repeats)
            gx = xp.zeros(shape, gy.dtype)
            xp.add.at(xp.moveaxis(gx, axis, 0), xp.asarray(source), xp.moveaxis(gy, axis, 0))
        return (gx.reshape(self._in_shape),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (repeat(grad_outputs[0], self.repeats, self.axis),)


def repeat(x: Any, repeats: Any, axis: int | None = None) -> variable.Variable:
    """Repeat each element of ``x``, as :func:`numpy.repeat`.

    Args:
        x: Input variable.
        repeats: A non-negative int (every element repeated that many times) or a
            sequence of them, one per element along ``axis``; ``True`` and ``False``
            count as 1 and 0.
        axis: The axis along which to repeat; ``None`` flattens ``x`` first.

    Returns:
        The repeated variable.

    Example:
        >>> F.repeat(np.array([1., 2.], 'f'), 2).array
        array([1., 1., 2., 2.], dtype=float32)
    """
    where = "chainer.functions.repeat"
    # A bool counts as 0 or 1 repetitions, as in numpy.repeat and Chainer 7.
    if isinstance(repeats, (bool, numpy.bool_)):
        repeats = int(repeats)
    elif isinstance(repeats, (tuple, list)):
        repeats = [int(r) if isinstance(r, (bool, numpy.bool_)) else r for r in repeats]
    reps = _util.as_int_tuple(repeats, where, "repeats")
    if any(r < 0 for r in reps):
        raise ValueError(f"{where}: repeats must be zero or larger, got {repeats!r}")
    spec: int | tuple[int, ...] = reps[0] if len(reps) == 1 else reps
    if axis is not None:
        axis = _util.as_int(axis, where, "axis")
    return Repeat(spec, axis).apply((x,))[0]


__all__ = ["repeat"]
