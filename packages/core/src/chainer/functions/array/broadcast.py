"""Broadcasting variables to a common or given shape."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, variable
from chainer.utils import type_check


class BroadcastTo(function_node.FunctionNode):
    """Broadcast an array to a shape (a read-only view, as NumPy returns)."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        self._shape = tuple(int(s) for s in shape)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type = in_types[0]
        type_check.expect(x_type.ndim <= len(self._shape))
        shape = type_check.eval(x_type.shape)
        lead = len(self._shape) - len(shape)
        for i, size in enumerate(shape):
            if size != 1 and size != self._shape[lead + i]:
                raise type_check.InvalidType(f"x.shape can be broadcast to {self._shape}", f"x.shape is {shape}")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        self._in_shape = x.shape
        xp = backend.get_array_module(x)
        return (xp.broadcast_to(x, self._shape),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.math import sum as sum_module

        return (sum_module.sum_to(grad_outputs[0], self._in_shape),)


def broadcast_to(x: Any, shape: Any) -> variable.Variable:
    """Broadcast ``x`` to ``shape`` by NumPy's rules.

    Args:
        x: Input variable.
        shape: Target shape.

    Returns:
        The broadcast variable (``x`` itself if it already has the shape).

    Example:
        >>> F.broadcast_to(np.array([1., 2.], 'f'), (2, 2)).array
        array([[1., 2.],
               [1., 2.]], dtype=float32)
    """
    shape = tuple(shape)
    if getattr(x, "shape", None) == shape:
        # Nothing to do: a variable is returned as it is, an array wrapped (not copied).
        return variable.as_variable(x)
    return BroadcastTo(shape).apply((x,))[0]


def _check_broadcastable(in_types: Any) -> None:
    type_check.expect(in_types.size() > 0)
    type_check.expect_broadcast_shapes(*[t.shape for t in in_types])


class Broadcast(function_node.FunctionNode):
    """All inputs broadcast to their common shape, in one node; each gradient is summed
    back to its input's shape."""

    def check_type_forward(self, in_types: Any) -> None:
        _check_broadcastable(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self._in_shapes = [x.shape for x in inputs]
        xp = backend.get_array_module(*inputs)
        return tuple(xp.broadcast_arrays(*inputs))

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.math import sum as sum_module

        return tuple(
            None if grad_outputs[i] is None else sum_module.sum_to(grad_outputs[i], self._in_shapes[i]) for i in indexes
        )


def broadcast(*args: Any) -> Any:
    """Broadcast the given variables to their common shape.

    Args:
        args: Input variables (or arrays) whose shapes broadcast together by NumPy's rules.

    Returns:
        One variable (the argument itself) if one argument is given, else a tuple of
        variables made by one :class:`Broadcast` node.

    Raises:
        chainer.utils.type_check.InvalidType: No argument is given, or the shapes do
            not broadcast together.

    Example:
        >>> a, b = F.broadcast(np.zeros((2, 1), 'f'), np.ones(3, 'f'))
        >>> a.shape, b.shape
        ((2, 3), (2, 3))
    """
    if len(args) == 1:
        return variable.as_variable(args[0])
    return Broadcast().apply(args)


__all__ = ["broadcast", "broadcast_to"]
