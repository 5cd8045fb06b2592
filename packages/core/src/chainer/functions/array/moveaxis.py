"""Moving axes to new positions."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import function_node, variable
from chainer.functions.array import _util
from chainer.utils import type_check


class Moveaxis(function_node.FunctionNode):
    """Move the ``source`` axes to ``destination`` keeping the order of the others (as
    :func:`numpy.moveaxis`)."""

    def __init__(self, source: tuple[int, ...], destination: tuple[int, ...]) -> None:
        self.source = source
        self.destination = destination

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type = in_types[0]
        for axis in self.source:
            _util.expect_axis(x_type, axis, "source")
        for axis in self.destination:
            _util.expect_axis(x_type, axis, "destination")
        ndim = type_check.eval(x_type.ndim)
        for name, axes in (("source", self.source), ("destination", self.destination)):
            if len({a % ndim for a in axes}) != len(axes):
                # A ValueError, as numpy.moveaxis and Chainer 7 raise.
                raise ValueError(
                    f"chainer.functions.moveaxis: {name} {axes} repeats an axis of the {ndim}-dimensional input"
                )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        ndim = x.ndim
        source = [a % ndim for a in self.source]
        destination = [a % ndim for a in self.destination]
        perm = [i for i in range(ndim) if i not in source]
        for dst, src in sorted(zip(destination, source)):
            perm.insert(dst, src)
        self._perm = perm
        return (x.transpose(perm),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.array import transpose

        return (transpose.transpose(grad_outputs[0], tuple(numpy.argsort(self._perm))),)


def moveaxis(x: Any, source: Any, destination: Any) -> variable.Variable:
    """Move axes to new positions (a view); the other axes keep their order.

    Args:
        x: Input variable.
        source: An int or a tuple of ints: the axes to move.
        destination: An int or a tuple of ints (as many as ``source``): their new positions.

    Returns:
        The variable with its axes permuted, as :func:`numpy.moveaxis` does.

    Example:
        >>> F.moveaxis(np.zeros((2, 3, 4), 'f'), 0, -1).shape
        (3, 4, 2)
    """
    where = "chainer.functions.moveaxis"
    source = _util.as_int_tuple(source, where, "source")
    destination = _util.as_int_tuple(destination, where, "destination")
    if len(source) != len(destination):
        raise ValueError(
            f"{where}: source and destination must have the same number of axes, got {source} and {destination}"
        )
    return Moveaxis(source, destination).apply((x,))[0]


__all__ = ["moveaxis"]
