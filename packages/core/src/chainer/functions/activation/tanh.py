"""Hyperbolic tangent."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, function_node, utils, variable
from chainer.functions import _gpu_kernels, _scalar_arrays
from chainer.utils import type_check

_ndarray = numpy.ndarray
_constant_arrays = _scalar_arrays.arrays


class Tanh(function_node.FunctionNode):
    _type_check_reads_inputs_only = True

    @property
    def label(self) -> str:
        return "Tanh"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        x = inputs[0]
        y = numpy.tanh(x) if type(x) is _ndarray else backend.get_array_module(x).tanh(x)
        return (y if type(y) is _ndarray else utils.force_array(y),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (y,) = self.get_retained_outputs()
        return TanhGrad().apply((y, grad_outputs[0]))


class TanhGrad(function_node.FunctionNode):
    """:math:`g_x = g_y (1 - y^2)` from the output ``y`` of tanh."""

    def forward_cpu(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        y, gy = inputs
        # 1 as a 0-dimensional array of y's dtype: the same result, faster (see _scalar_arrays).
        one = _constant_arrays.get((1.0, y.dtype))
        if one is None or type(y) is not _ndarray:
            one = _scalar_arrays.operand(1.0, y)
        gx = gy * (one - y * y)
        return (gx if type(gx) is _ndarray else utils.force_array(gx),)

    def forward_gpu(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        return (_gpu_kernels.tanh_grad(*inputs),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        y, gy = self.get_retained_inputs()
        ggx = grad_outputs[0]
        result = []
        for i in indexes:
            if i == 0:
                result.append(ggx * gy * y * -2.0)
            else:
                result.append(ggx * (1 - y * y))
        return tuple(result)


def tanh(x: Any) -> variable.Variable:
    """Elementwise hyperbolic tangent.

    Args:
        x: Input variable of a floating dtype.

    Example:
        >>> F.tanh(np.array([0.], 'f')).array
        array([0.], dtype=float32)
    """
    return Tanh().apply((x,))[0]


__all__ = ["tanh"]
