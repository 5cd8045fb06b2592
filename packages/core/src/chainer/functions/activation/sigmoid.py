"""Logistic sigmoid."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.functions import _gpu_kernels
from chainer.utils import type_check


class Sigmoid(function_node.FunctionNode):
    @property
    def label(self) -> str:
        return "Sigmoid"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward_cpu(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        x = inputs[0]
        xp = backend.get_array_module(x)
        # tanh form: no overflow for large |x|, unlike 1 / (1 + exp(-x)).
        half = x.dtype.type(0.5)
        return (utils.force_array(xp.tanh(x * half) * half + half),)

    def forward_gpu(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        return (_gpu_kernels.sigmoid(inputs[0]),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (y,) = self.get_retained_outputs()
        return SigmoidGrad().apply((y, grad_outputs[0]))


class SigmoidGrad(function_node.FunctionNode):
    """:math:`g_x = g_y\\, y (1 - y)` from the output ``y`` of the sigmoid."""

    def forward_cpu(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        y, gy = inputs
        return (utils.force_array(gy * y * (1 - y)),)

    def forward_gpu(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        return (_gpu_kernels.sigmoid_grad(*inputs),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        y, gy = self.get_retained_inputs()
        ggx = grad_outputs[0]
        result = []
        for i in indexes:
            if i == 0:
                result.append(ggx * gy * (1 - 2 * y))
            else:
                result.append(ggx * y * (1 - y))
        return tuple(result)


def sigmoid(x: Any) -> variable.Variable:
    """Elementwise logistic sigmoid, :math:`1 / (1 + e^{-x})`.

    Args:
        x: Input variable of a floating dtype.

    Example:
        >>> F.sigmoid(np.array([0.], 'f')).array
        array([0.5], dtype=float32)
    """
    return Sigmoid().apply((x,))[0]


__all__ = ["sigmoid"]
