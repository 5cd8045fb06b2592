"""Sampling grids of 2-D spatial transformers."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, function_node, variable
from chainer.functions.array import _util
from chainer.utils import argument, type_check

_USE_CUDNN_MESSAGE = (
    "use_cudnn argument is not supported anymore. Use chainer.using_config('use_cudnn', value) context where value "
    "can be 'always', 'never', or 'auto'."
)


def _target_coordinates(xp: Any, output_shape: tuple[int, int], dtype: Any) -> Any:
    """``(3, H * W)``: the x (width) and y (height) coordinates of the output pixels in
    ``[-1, 1]``, and ones."""
    height, width = output_shape
    ys, xs = numpy.meshgrid(numpy.linspace(-1, 1, height), numpy.linspace(-1, 1, width), indexing="ij")
    coords = numpy.stack([xs.ravel(), ys.ravel(), numpy.ones(height * width)])
    return xp.asarray(coords.astype(dtype))


class SpatialTransformerGrid(function_node.FunctionNode):
    """``grid[b] = theta[b] @ [x_t; y_t; 1]`` over the target pixels."""

    def __init__(self, output_shape: tuple[int, int]) -> None:
        self.output_shape = output_shape

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("theta",))
        theta_type = in_types[0]
        type_check.expect(
            theta_type.dtype.kind == "f",
            theta_type.ndim == 3,
            theta_type.shape[1] == 2,
            theta_type.shape[2] == 3,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        theta = inputs[0]
        xp = backend.get_array_module(theta)
        self._coords = _target_coordinates(xp, self.output_shape, theta.dtype)
        grid = xp.matmul(theta, self._coords)
        return (grid.reshape((theta.shape[0], 2) + self.output_shape),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.array import reshape
        from chainer.functions.math import matmul

        ggrid = reshape.reshape(grad_outputs[0], (grad_outputs[0].shape[0], 2, -1))
        return (matmul.matmul(ggrid, self._coords.T),)


def spatial_transformer_grid(theta: Any, output_shape: Any, **kwargs: Any) -> variable.Variable:
    """Sampling grid of a 2-D spatial transformer (an affine transformation).

    For each output pixel with normalized target coordinates ``(x_t, y_t)`` in
    ``[-1, 1] x [-1, 1]`` (``x_t`` along the width, ``y_t`` along the height; both
    corners included), the source coordinates are
    ``(x_s, y_s) = theta @ (x_t, y_t, 1)``. Feed the grid to
    :func:`spatial_transformer_sampler`.

    Args:
        theta: Variable of shape ``(n, 2, 3)`` and a floating dtype.
        output_shape: ``(out_h, out_w)``.

    Returns:
        A variable of shape ``(n, 2, out_h, out_w)``; channel 0 holds ``x_s`` and
        channel 1 holds ``y_s``.

    Example:
        >>> theta = np.array([[[1., 0., 0.], [0., 1., 0.]]], 'f')
        >>> F.spatial_transformer_grid(theta, (2, 2)).array[0, 0]
        array([[-1.,  1.],
               [-1.,  1.]], dtype=float32)
    """
    if kwargs:
        argument.check_unexpected_kwargs(kwargs, use_cudnn=_USE_CUDNN_MESSAGE)
        argument.assert_kwargs_empty(kwargs)
    where = "chainer.functions.spatial_transformer_grid"
    shape = _util.as_int_tuple(output_shape, where, "output_shape", allow_int=False)
    if len(shape) != 2 or min(shape) <= 0:
        raise ValueError(f"{where}: output_shape must be two positive ints (out_h, out_w), got {output_shape!r}")
    return SpatialTransformerGrid((shape[0], shape[1])).apply((theta,))[0]


__all__ = ["spatial_transformer_grid"]
