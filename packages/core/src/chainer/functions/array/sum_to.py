"""Sum an array down to a shape, undoing broadcasting."""

from __future__ import annotations

from typing import Any

from chainer import function_node, utils, variable
from chainer.utils import type_check


class SumTo(function_node.FunctionNode):
    """Sum over the axes that broadcasting to the input's shape would add or stretch."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        self._shape = tuple(shape)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type = in_types[0]
        ndim = len(self._shape)
        type_check.expect(x_type.ndim >= ndim)
        shape = type_check.eval(x_type.shape)
        lead = len(shape) - ndim
        for i, size in enumerate(self._shape):
            if size != 1 and shape[lead + i] != size:
                raise type_check.InvalidType(f"x.shape can be summed to {self._shape}", f"x.shape is {shape}")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        self._in_shape = x.shape
        return (utils.force_array(utils.sum_to(x, self._shape)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.array import broadcast

        return (broadcast.broadcast_to(grad_outputs[0], self._in_shape),)


def sum_to(x: Any, shape: Any) -> variable.Variable:
    """Sum the elements of ``x`` so that the result has ``shape``.

    ``x.shape`` must be ``shape`` after broadcasting (leading axes added, size-1 axes
    stretched); this is the adjoint of :func:`broadcast_to`.

    Args:
        x: Input variable.
        shape: Target shape.

    Returns:
        The summed variable (``x`` itself when the shapes already agree).
    """
    shape = tuple(shape)
    if isinstance(x, variable.Variable) and x.shape == shape:
        return x
    if not isinstance(x, variable.Variable) and getattr(x, "shape", None) == shape:
        return variable.as_variable(x)
    return SumTo(shape).apply((x,))[0]


__all__ = ["sum_to"]
