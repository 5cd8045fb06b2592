"""Rectified linear unit."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, function_node, utils, variable
from chainer.backends import cpu_kernels, intel64
from chainer.functions import _gpu_kernels
from chainer.utils import type_check


class ReLU(function_node.FunctionNode):
    """:math:`\\max(0, x)`."""

    # Elementwise: accepts inputs of one shared memory layout (see FunctionNode.check_layout_forward).
    _layout_elementwise = True

    # The check reads only the input's type: apply() runs it once per input signature.
    _type_check_reads_inputs_only = True

    @property
    def label(self) -> str:
        return "ReLU"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        x = inputs[0]
        if type(x) is numpy.ndarray and (y := intel64.run("relu_forward", x)) is not None:
            return (y,)
        xp = backend.get_array_module(x)
        return (utils.force_array(xp.maximum(x, 0, dtype=x.dtype)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (y,) = self.get_retained_outputs()
        # raw_array: the output as stored, in whatever memory layout it has.
        return ReLUGrad2(y.raw_array).apply(grad_outputs)


class ReLUGrad2(function_node.FunctionNode):
    """Pass gradients where the ReLU output ``y`` is positive. Linear in ``gy``, so its
    own gradient is the same function of ``y``."""

    # Elementwise: accepts inputs of one shared memory layout (see FunctionNode.check_layout_forward).
    _layout_elementwise = True

    def __init__(self, y: Any) -> None:
        self._y = y

    def forward_cpu(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy = inputs[0]
        if (gx := intel64.run("relu_backward", self._y, gy)) is not None:
            return (gx,)
        kernel = cpu_kernels.get("relu_backward")
        if kernel is not None and type(gy) is numpy.ndarray and gy.shape == self._y.shape:
            gx = numpy.empty(gy.shape, gy.dtype)
            if kernel(self._y, gy, gx):
                return (gx,)
        return (utils.force_array(gy * (self._y > 0)),)

    def forward_gpu(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (_gpu_kernels.relu_grad(self._y, inputs[0]),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return ReLUGrad2(self._y).apply(grad_outputs)


class ReLUGradCudnn(ReLUGrad2):
    """The name of Chainer's cuDNN gradient node of the ReLU. CuPy 14 has no cuDNN, so
    it is :class:`ReLUGrad2` (from the output ``y``; the input ``x`` is not needed)."""

    def __init__(self, x: Any, y: Any) -> None:
        super().__init__(y)


def relu(x: Any) -> variable.Variable:
    """Rectified linear unit, :math:`f(x) = \\max(0, x)`.

    Args:
        x: Input variable of a floating dtype.

    Returns:
        The output variable, of the same shape and dtype.

    Example:
        >>> F.relu(np.array([-1., 0., 2.], 'f')).array
        array([0., 0., 2.], dtype=float32)
    """
    return ReLU().apply((x,))[0]


__all__ = ["relu"]
