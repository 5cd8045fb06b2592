"""Exponential linear unit."""

from __future__ import annotations

import numbers
from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.utils import type_check


def _check_alpha(alpha: Any, where: str) -> float:
    if not isinstance(alpha, numbers.Real) or isinstance(alpha, bool):
        raise TypeError(f"{where}: alpha must be a real number, got {type(alpha).__name__} {alpha!r}")
    return float(alpha)


class ELU(function_node.FunctionNode):
    """:math:`x` for :math:`x > 0`, :math:`\\alpha (e^x - 1)` otherwise."""

    def __init__(self, alpha: float) -> None:
        self.alpha = _check_alpha(alpha, "chainer.functions.elu")

    @property
    def label(self) -> str:
        return "ELU"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x = inputs[0]
        xp = backend.get_array_module(x)
        # expm1 of min(x, 0): no overflow warnings from the branch that is discarded.
        neg = xp.expm1(xp.minimum(x, 0)) * x.dtype.type(self.alpha)
        return (utils.force_array(xp.where(x > 0, x, neg), x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = self.get_retained_inputs()
        return ELUGrad(self.alpha).apply((x, grad_outputs[0]))


class ELUGrad(function_node.FunctionNode):
    """:math:`g_x = g_y` for :math:`x > 0`, :math:`g_y \\alpha e^x` otherwise."""

    def __init__(self, alpha: float) -> None:
        self.alpha = alpha

    @property
    def label(self) -> str:
        return "ELUGrad"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        xp = backend.get_array_module(x)
        slope = xp.where(x > 0, x.dtype.type(1), xp.exp(xp.minimum(x, 0)) * x.dtype.type(self.alpha))
        return (utils.force_array(gy * slope, gy.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.math import exponential

        x, gy = self.get_retained_inputs()
        ggx = grad_outputs[0]
        result: list[Any] = []
        for index in indexes:
            if index == 0:
                negative = (x.array <= 0).astype(x.dtype)
                result.append(ggx * gy * exponential.exp(x) * (negative * x.dtype.type(self.alpha)))
            else:
                result.append(ELUGrad(self.alpha).apply((x, ggx))[0])
        return tuple(result)


def elu(x: Any, alpha: float = 1.0) -> variable.Variable:
    """Exponential linear unit: :math:`x` for :math:`x > 0`, :math:`\\alpha (e^x - 1)` otherwise.

    Args:
        x: Input variable of a floating dtype.
        alpha: Scale of the negative part.

    Returns:
        Output variable of the shape and dtype of ``x``.

    Example:
        >>> F.elu(np.array([-1., 1.], 'f')).array
        array([-0.63212055,  1.        ], dtype=float32)
    """
    return ELU(alpha).apply((x,))[0]


__all__ = ["elu"]
