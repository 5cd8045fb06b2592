"""Elementwise product with a variable broadcast along trailing axes from ``axis``."""

from __future__ import annotations

from typing import Any

from chainer import function_node, utils, variable
from chainer.functions.math import _elementwise


class Scale(function_node.FunctionNode):
    def __init__(self, axis: int) -> None:
        self.axis = axis

    @property
    def label(self) -> str:
        return "scale"

    def check_type_forward(self, in_types: Any) -> None:
        _elementwise.check_axis_types(in_types, self.axis, "scale")

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, y = inputs
        return (utils.force_array(x * _elementwise.broadcastable(y, x.ndim, self.axis)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.math import sum as sum_module

        x, y = self.get_retained_inputs()
        gy = grad_outputs[0]
        result = []
        for i in indexes:
            if i == 0:
                result.append(scale(gy, y, self.axis))
            else:
                g = gy * x
                axes = _elementwise.reduced_axes(x.ndim, y.ndim, self.axis)
                result.append(sum_module.sum(g, axis=axes) if axes else g)
        return tuple(result)


def scale(x: Any, y: Any, axis: int = 1) -> variable.Variable:
    """Elementwise product of ``x`` and ``y``, with ``y`` broadcast over the other axes.

    ``y`` covers the axes ``axis, axis + 1, ..., axis + y.ndim - 1`` of ``x``:
    ``y.shape == x.shape[axis:axis + y.ndim]``, and is repeated along the other axes.
    For a batch of images ``x`` of shape ``(N, C, H, W)`` and ``y`` of shape ``(C,)``,
    ``scale(x, y)`` scales each channel.

    Args:
        x: Input variable or array of a floating dtype.
        y: The scale factors, of the dtype of ``x``.
        axis: The first axis of ``x`` that ``y`` covers.

    Returns:
        The product, of the shape of ``x``.

    Example:
        >>> x = np.ones((2, 3, 2), 'f')
        >>> F.scale(x, np.array([1., 2., 3.], 'f'))[0].array
        array([[1., 1.],
               [2., 2.],
               [3., 3.]], dtype=float32)
    """
    return Scale(_elementwise.check_axis(axis, "chainer.functions.scale")).apply((x, y))[0]


__all__ = ["scale"]
