"""Clipped rectified linear unit."""

from __future__ import annotations

import numbers
from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.functions.activation import _elementwise
from chainer.utils import type_check


class ClippedReLU(function_node.FunctionNode):
    """:math:`\\min(\\max(0, x), z)`."""

    def __init__(self, z: float, label: str = "ClippedReLU") -> None:
        if not isinstance(z, numbers.Real) or isinstance(z, bool):
            raise TypeError(f"chainer.functions.clipped_relu: z must be a real number, got {type(z).__name__} {z!r}")
        self.cap = float(z)
        self._label = label

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x = inputs[0]
        xp = backend.get_array_module(x)
        return (utils.force_array(xp.clip(x, x.dtype.type(0), x.dtype.type(self.cap)), x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = self.get_retained_inputs()[0].array
        # The derivative is 1 strictly inside (0, z) and 0 elsewhere (kinks taken as 0).
        mask = (x > 0) & (x < self.cap)
        return _elementwise.ScaleByConstant(mask, f"{self._label}Grad").apply(grad_outputs)


def clipped_relu(x: Any, z: float = 20.0) -> variable.Variable:
    """Clipped rectified linear unit, :math:`\\min(\\max(0, x), z)`.

    Args:
        x: Input variable of a floating dtype.
        z: The clipping value (a real number).

    Returns:
        Output variable of the shape and dtype of ``x``.

    Example:
        >>> F.clipped_relu(np.array([-1., 5., 30.], 'f'), z=10.).array
        array([ 0.,  5., 10.], dtype=float32)
    """
    return ClippedReLU(z).apply((x,))[0]


__all__ = ["clipped_relu"]
