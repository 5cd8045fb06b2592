"""Permuting the axes of a variable."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import function_node, variable
from chainer.utils import type_check


class Transpose(function_node.FunctionNode):
    """Permute the axes (reverse them if ``axes`` is ``None``)."""

    def __init__(self, axes: tuple[int, ...] | None = None) -> None:
        self.axes = axes

    @property
    def label(self) -> str:
        return "Transpose"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        if self.axes is not None:
            ndim = type_check.eval(in_types[0].ndim)
            normalized = sorted(a % ndim if -ndim <= a < ndim else a for a in self.axes) if ndim else list(self.axes)
            if normalized != list(range(ndim)):
                raise type_check.InvalidType(
                    f"axes {self.axes} are a permutation of the {ndim} axes of x", f"x.ndim is {ndim}"
                )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (inputs[0].transpose(self.axes),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy = grad_outputs[0]
        if self.axes is None:
            return (transpose(gy),)
        ndim = len(self.axes)
        inverse = tuple(numpy.argsort([a % ndim for a in self.axes]))
        return (transpose(gy, inverse),)


def transpose(x: Any, axes: Any = None) -> variable.Variable:
    """Permute the dimensions of ``x``.

    Args:
        x: Input variable.
        axes: A permutation of the axes; ``None`` reverses them.

    Returns:
        The transposed variable.
    """
    if axes is not None:
        axes = tuple(int(a) for a in axes)
    return Transpose(axes).apply((x,))[0]


__all__ = ["transpose"]
