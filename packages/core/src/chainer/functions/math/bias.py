"""Elementwise sum with a variable broadcast along trailing axes from ``axis``."""

from __future__ import annotations

from typing import Any

from chainer import function_node, utils, variable
from chainer.functions.math import _elementwise


class Bias(function_node.FunctionNode):
    def __init__(self, axis: int) -> None:
        self.axis = axis

    @property
    def label(self) -> str:
        return "bias"

    def check_type_forward(self, in_types: Any) -> None:
        _elementwise.check_axis_types(in_types, self.axis, "bias")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, y = inputs
        self._ndims = (x.ndim, y.ndim)
        return (utils.force_array(x + _elementwise.broadcastable(y, x.ndim, self.axis)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.math import sum as sum_module

        gy = grad_outputs[0]
        axes = _elementwise.reduced_axes(*self._ndims, self.axis)
        result = []
        for i in indexes:
            if i == 0:
                result.append(gy)
            else:
                result.append(sum_module.sum(gy, axis=axes) if axes else gy)
        return tuple(result)


def bias(x: Any, y: Any, axis: int = 1) -> variable.Variable:
    """Elementwise sum of ``x`` and ``y``, with ``y`` broadcast over the other axes.

    ``y`` covers the axes ``axis, axis + 1, ..., axis + y.ndim - 1`` of ``x``:
    ``y.shape == x.shape[axis:axis + y.ndim]``, and is repeated along the other axes.
    For a batch of images ``x`` of shape ``(N, C, H, W)`` and ``y`` of shape ``(C,)``,
    ``bias(x, y)`` adds one value per channel.

    Args:
        x: Input variable or array of a floating dtype.
        y: The values to add, of the dtype of ``x``.
        axis: The first axis of ``x`` that ``y`` covers.

    Returns:
        The sum, of the shape of ``x``.

    Example:
        >>> x = np.zeros((2, 3, 2), 'f')
        >>> F.bias(x, np.array([1., 2., 3.], 'f'))[0].array
        array([[1., 1.],
               [2., 2.],
               [3., 3.]], dtype=float32)
    """
    return Bias(_elementwise.check_axis(axis, "chainer.functions.bias")).apply((x, y))[0]


__all__ = ["bias"]
