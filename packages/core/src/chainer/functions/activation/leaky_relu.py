"""Leaky rectified linear unit."""

from __future__ import annotations

import numbers
from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.functions.activation import _elementwise
from chainer.utils import type_check


class LeakyReLU(function_node.FunctionNode):
    """:math:`x` for :math:`x \\ge 0`, :math:`a x` otherwise."""

    def __init__(self, slope: float) -> None:
        if not isinstance(slope, numbers.Real) or isinstance(slope, bool):
            raise TypeError(
                f"chainer.functions.leaky_relu: slope must be a real number, got {type(slope).__name__} {slope!r}"
            )
        self.slope = float(slope)

    @property
    def label(self) -> str:
        return "LeakyReLU"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x = inputs[0]
        xp = backend.get_array_module(x)
        return (utils.force_array(xp.where(x >= 0, x, x * x.dtype.type(self.slope)), x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = self.get_retained_inputs()[0].array
        xp = backend.get_array_module(x)
        # Decided on the input (not the output), so a slope of 0 gives gradient 0 for x < 0.
        factor = xp.where(x >= 0, x.dtype.type(1), x.dtype.type(self.slope))
        return _elementwise.ScaleByConstant(factor, "LeakyReLUGrad").apply(grad_outputs)


def leaky_relu(x: Any, slope: float = 0.2) -> variable.Variable:
    """Leaky rectified linear unit: :math:`x` where :math:`x \\ge 0`, ``slope * x`` elsewhere.

    Args:
        x: Input variable of a floating dtype.
        slope: Slope for negative inputs.

    Returns:
        Output variable of the shape and dtype of ``x``.

    Example:
        >>> F.leaky_relu(np.array([-2., 1.], 'f'), slope=0.5).array
        array([-1.,  1.], dtype=float32)
    """
    return LeakyReLU(slope).apply((x,))[0]


__all__ = ["leaky_relu"]
