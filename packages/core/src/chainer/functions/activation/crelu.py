"""Concatenated rectified linear unit."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.functions.activation import _elementwise
from chainer.utils import type_check


class CReLU(function_node.FunctionNode):
    """``concat((relu(x), relu(-x)), axis)``."""

    def __init__(self, axis: int) -> None:
        self.axis = _elementwise.check_axis(axis, "chainer.functions.crelu")

    @property
    def label(self) -> str:
        return "CReLU"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type = in_types[0]
        type_check.expect(x_type.dtype.kind == "f")
        _elementwise.expect_axis_in_range(x_type, self.axis)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        xp = backend.get_array_module(x)
        self._positive = x > 0
        self._negative = x < 0
        zero = x.dtype.type(0)
        return (utils.force_array(xp.concatenate((xp.maximum(x, zero), xp.maximum(-x, zero)), axis=self.axis)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return _CReLUGrad(self._positive, self._negative, self.axis).apply(grad_outputs)


class _CReLUGrad(function_node.FunctionNode):
    """``gx = gy1 * [x > 0] - gy2 * [x < 0]`` where ``gy1, gy2`` are the halves of ``gy``."""

    def __init__(self, positive: Any, negative: Any, axis: int) -> None:
        self._positive = positive
        self._negative = negative
        self.axis = axis

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy = inputs[0]
        xp = backend.get_array_module(gy)
        g1, g2 = xp.split(gy, 2, axis=self.axis)
        return (utils.force_array(g1 * self._positive - g2 * self._negative, gy.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return _MaskedCReLU(self._positive, self._negative, self.axis).apply(grad_outputs)


class _MaskedCReLU(function_node.FunctionNode):
    """``concat((x * [x0 > 0], -x * [x0 < 0]), axis)`` with the masks of the original input ``x0``:
    the adjoint of :class:`_CReLUGrad`."""

    def __init__(self, positive: Any, negative: Any, axis: int) -> None:
        self._positive = positive
        self._negative = negative
        self.axis = axis

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        xp = backend.get_array_module(x)
        y = xp.concatenate((x * self._positive, -x * self._negative), axis=self.axis)
        return (utils.force_array(y, x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return _CReLUGrad(self._positive, self._negative, self.axis).apply(grad_outputs)


def crelu(x: Any, axis: int = 1) -> variable.Variable:
    """Concatenated ReLU: ``concat((relu(x), relu(-x)), axis)``.

    See Shang et al., *Understanding and Improving Convolutional Neural Networks via
    Concatenated Rectified Linear Units* (2016).

    Args:
        x: Input variable of a floating dtype.
        axis: Axis along which the two halves are concatenated.

    Returns:
        Output variable whose ``axis`` is twice as long as that of ``x``.

    Example:
        >>> F.crelu(np.array([[-1., 2.]], 'f')).array
        array([[0., 2., 1., 0.]], dtype=float32)
    """
    return CReLU(axis).apply((x,))[0]


__all__ = ["crelu"]
