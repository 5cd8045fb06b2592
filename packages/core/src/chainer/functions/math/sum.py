"""Summation of elements: over axes (:func:`sum`) or down to a shape (:func:`sum_to`)."""

from __future__ import annotations

from typing import Any

from chainer import function_node, utils, variable
from chainer.functions.math import _reduction
from chainer.utils import type_check


class Sum(_reduction.AxisReduction):
    """Sum over the given axes."""

    _where = "chainer.functions.sum"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        self._in_shape = x.shape
        return (utils.force_array(x.sum(axis=self.axis, keepdims=self.keepdims)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.array import broadcast, reshape

        gy = grad_outputs[0]
        in_shape = self._in_shape
        if not self.keepdims and self.axis is not None:
            ndim = len(in_shape)
            kept = [1 if (i in {a % ndim for a in self.axis}) else s for i, s in enumerate(in_shape)]
            gy = reshape.reshape(gy, kept)
        return (broadcast.broadcast_to(gy, in_shape),)


def sum(x: Any, axis: Any = None, keepdims: bool = False) -> variable.Variable:
    """Sum of array elements over the given axes.

    Args:
        x: Input variable.
        axis: ``None`` (all elements), an int, or a tuple of ints.
        keepdims: Keep the summed axes with size one.

    Returns:
        The sum.

    Example:
        >>> F.sum(np.array([[1., 2.], [3., 4.]], 'f'), axis=0).array
        array([4., 6.], dtype=float32)
    """
    return Sum(_reduction.normalize_axis(axis, "chainer.functions.sum"), keepdims).apply((x,))[0]


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
    # A variable with a non-standard memory layout (chainer.memory_layouts) agrees in its
    # shape as stored too: elementwise functions sum its gradients to their inputs'
    # nodes' shapes, which are the stored ones.
    if isinstance(x, variable.Variable) and (x.raw_array.shape == shape or (x.layout and x.shape == shape)):
        return x
    if not isinstance(x, variable.Variable) and getattr(x, "shape", None) == shape:
        return variable.as_variable(x)
    return SumTo(shape).apply((x,))[0]


__all__ = ["sum", "sum_to"]
