"""Piecewise-linear approximation of the sigmoid."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.functions.activation import _elementwise
from chainer.utils import type_check


class HardSigmoid(function_node.FunctionNode):
    """:math:`\\mathrm{clip}(0.2 x + 0.5, 0, 1)`."""

    @property
    def label(self) -> str:
        return "HardSigmoid"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x = inputs[0]
        xp = backend.get_array_module(x)
        t = x.dtype.type
        return (utils.force_array(xp.clip(x * t(0.2) + t(0.5), t(0), t(1)), x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return HardSigmoidGrad(self.get_retained_inputs()[0].array).apply(grad_outputs)


class HardSigmoidGrad(_elementwise.ScaleByConstant):
    """``gx = 0.2 gy`` where ``-2.5 < x < 2.5``, 0 elsewhere, from the input ``x`` of the
    hard sigmoid. Linear in ``gy``, so its gradient is itself."""

    def __init__(self, x: Any) -> None:
        super().__init__(((x > -2.5) & (x < 2.5)) * x.dtype.type(0.2), "HardSigmoidGrad")


def hard_sigmoid(x: Any) -> variable.Variable:
    """Elementwise hard sigmoid: 0 for :math:`x < -2.5`, 1 for :math:`x > 2.5`, and
    :math:`0.2 x + 0.5` in between.

    Args:
        x: Input variable of a floating dtype.

    Returns:
        Output variable of the shape and dtype of ``x``.

    Example:
        >>> F.hard_sigmoid(np.array([-3., 0., 1., 3.], 'f')).array
        array([0. , 0.5, 0.7, 1. ], dtype=float32)
    """
    return HardSigmoid().apply((x,))[0]


__all__ = ["hard_sigmoid"]
