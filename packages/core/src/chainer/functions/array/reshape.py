"""Reshaping a variable."""

from __future__ import annotations

from typing import Any

from chainer import function_node, variable
from chainer.utils import type_check


def _infer_shape(shape: tuple[int, ...], size: int) -> tuple[int, ...] | None:
    known = 1
    unknown = None
    for i, s in enumerate(shape):
        if s < -1:
            return None
        if s == -1:
            if unknown is not None:
                return None
            unknown = i
        else:
            known *= s
    if unknown is None:
        return shape if known == size else None
    if known == 0 or size % known:
        return None
    return shape[:unknown] + (size // known,) + shape[unknown + 1 :]


class Reshape(function_node.FunctionNode):
    """Reshape an array (one axis may be ``-1``)."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = shape

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        size = type_check.eval(in_types[0].shape)
        n = 1
        for s in size:
            n *= s
        if _infer_shape(self.shape, n) is None:
            raise type_check.InvalidType(
                f"x (of shape {size}) can be reshaped to {self.shape}",
                f"{n} element(s) do not fit {self.shape}",
            )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        self._in_shape = x.shape
        return (x.reshape(self.shape),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (reshape(grad_outputs[0], self._in_shape),)


def reshape(x: Any, shape: Any) -> variable.Variable:
    """Reshape ``x`` to ``shape`` (one entry may be ``-1``).

    Args:
        x: Input variable.
        shape: The new shape.

    Returns:
        The reshaped variable (``x`` itself if it already has the shape).
    """
    if isinstance(shape, int):
        shape = (shape,)
    shape = tuple(int(s) for s in shape)
    if getattr(x, "shape", None) == shape:
        # Nothing to do: a variable is returned as it is, an array wrapped (not copied).
        return variable.as_variable(x)
    return Reshape(shape).apply((x,))[0]


__all__ = ["reshape"]
