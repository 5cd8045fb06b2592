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
        return ClippedReLUGrad2(x, self.cap, f"{self._label}Grad").apply(grad_outputs)


class ClippedReLUGrad2(_elementwise.ScaleByConstant):
    """``gx = gy`` where ``0 < x < z``, 0 elsewhere (the kinks taken as 0), from the input
    ``x`` of the clipped ReLU. Linear in ``gy``, so its gradient is itself."""

    def __init__(self, x: Any, z: float, label: str = "ClippedReLUGrad2") -> None:
        super().__init__((x > 0) & (x < z), label)


class ClippedReLUGrad3(_elementwise.ScaleByConstant):
    """:class:`ClippedReLUGrad2` from the output ``y = clip(x, 0, z)`` instead of the
    input: ``0 < y < z`` exactly where ``0 < x < z``."""

    def __init__(self, y: Any, z: float, label: str = "ClippedReLUGrad3") -> None:
        super().__init__((y > 0) & (y < z), label)


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


def relu6(x: Any) -> variable.Variable:
    """Rectified linear unit clipped at 6, :math:`\\min(\\max(0, x), 6)`.

    Args:
        x: Input variable of a floating dtype.

    Returns:
        Output variable of the shape and dtype of ``x``.

    Example:
        >>> F.relu6(np.array([-1., 3., 8.], 'f')).array
        array([0., 3., 6.], dtype=float32)
    """
    return ClippedReLU(6.0, label="ReLU6").apply((x,))[0]


__all__ = ["clipped_relu", "relu6"]
