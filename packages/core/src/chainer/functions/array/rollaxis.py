"""Rolling an axis to a new position."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import function_node, variable
from chainer.functions.array import _util
from chainer.utils import type_check


class Rollaxis(function_node.FunctionNode):
    """Move ``axis`` so that it lies before position ``start`` (as :func:`numpy.rollaxis`)."""

    def __init__(self, axis: int, start: int) -> None:
        self.axis = axis
        self.start = start

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        _util.expect_axis(in_types[0], self.axis)
        # numpy.rollaxis takes -x.ndim <= start <= x.ndim.
        start = type_check.make_variable(self.start, "start")
        if self.start >= 0:
            type_check.expect(start <= in_types[0].ndim)
        else:
            type_check.expect(-start <= in_types[0].ndim)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        ndim = x.ndim
        axis = self.axis % ndim
        start = self.start + ndim if self.start < 0 else self.start
        if axis < start:
            start -= 1
        perm = [i for i in range(ndim) if i != axis]
        perm.insert(start, axis)
        self._perm = perm
        return (x.transpose(perm),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.array import transpose

        return (transpose.transpose(grad_outputs[0], tuple(numpy.argsort(self._perm))),)


def rollaxis(x: Any, axis: int, start: int = 0) -> variable.Variable:
    """Roll ``axis`` backwards until it lies before position ``start`` (a view).

    Args:
        x: Input variable.
        axis: The axis to move, ``-x.ndim <= axis < x.ndim``.
        start: The axis is moved to lie before this position, ``-x.ndim <= start <= x.ndim``.

    Returns:
        The variable with its axes permuted, as :func:`numpy.rollaxis` does.

    Example:
        >>> F.rollaxis(np.zeros((2, 3, 4), 'f'), 2).shape
        (4, 2, 3)
    """
    where = "chainer.functions.rollaxis"
    return Rollaxis(_util.as_int(axis, where, "axis"), _util.as_int(start, where, "start")).apply((x,))[0]


__all__ = ["rollaxis"]
