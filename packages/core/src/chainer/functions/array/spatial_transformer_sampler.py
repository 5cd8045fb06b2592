"""Bilinear sampling of images at the points of a grid (2-D spatial transformers)."""

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


class _Sampling:
    """Where each grid point samples the zero-padded image ``(n, c, H + 2, W + 2)``:
    flat pixel indices of its four neighbours, their bilinear weights, and the data needed
    for the gradient with respect to the grid."""

    def __init__(self, grid: Any, height: int, width: int) -> None:
        xp = backend.get_array_module(grid)
        dtype = grid.dtype
        # Source coordinates in pixels of the padded image (the image starts at 1).
        u = (grid[:, 0] + 1) * ((width - 1) / 2) + 1
        v = (grid[:, 1] + 1) * ((height - 1) / 2) + 1
        # Beyond one pixel of zero padding the sample is zero; there the coordinates are
        # clipped, and the clipped ones get no gradient.
        self.u_inside = (u >= 0) & (u <= width + 1)
        self.v_inside = (v >= 0) & (v <= height + 1)
        u = u.clip(0, width + 1)
        v = v.clip(0, height + 1)
        u0 = xp.floor(u).clip(0, width).astype(numpy.intp)
        v0 = xp.floor(v).clip(0, height).astype(numpy.intp)
        self.du = (u - u0).astype(dtype, copy=False)  # weight of the right neighbours
        self.dv = (v - v0).astype(dtype, copy=False)  # weight of the lower neighbours
        row = width + 2
        top_left = v0 * row + u0
        # (n, 4, H_out, W_out): top-left, top-right, bottom-left, bottom-right.
        self.index = xp.stack([top_left, top_left + 1, top_left + row, top_left + row + 1], axis=1)
        cu, cv = 1 - self.du, 1 - self.dv
        self.weights = xp.stack([cu * cv, self.du * cv, cu * self.dv, self.du * self.dv], axis=1)
        self.u_scale = (width - 1) / 2
        self.v_scale = (height - 1) / 2

    def gather(self, x_pad: Any) -> Any:
        """``(n, c, 4, H_out, W_out)``: the four neighbours of every grid point."""
        xp = backend.get_array_module(x_pad)
        n, c = x_pad.shape[:2]
        flat = x_pad.reshape(n, c, -1)
        index = self.index.reshape(n, 1, -1)
        picked = xp.take_along_axis(flat, xp.broadcast_to(index, (n, c, index.shape[2])), axis=2)
        return picked.reshape((n, c) + self.index.shape[1:])


def _pad(x: Any) -> Any:
    xp = backend.get_array_module(x)
    n, c, h, w = x.shape
    padded = xp.zeros((n, c, h + 2, w + 2), x.dtype)
    padded[:, :, 1:-1, 1:-1] = x
    return padded


class SpatialTransformerSampler(function_node.FunctionNode):
    """``y[b, c, i, j]``: the bilinear interpolation of ``x[b, c]`` at ``grid[b, :, i, j]``."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "grid"))
        x_type, grid_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            grid_type.dtype == x_type.dtype,
            x_type.ndim == 4,
            grid_type.ndim == 4,
            grid_type.shape[0] == x_type.shape[0],
            grid_type.shape[1] == 2,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, grid = inputs
        sampling = _Sampling(grid, x.shape[2], x.shape[3])
        y = (sampling.gather(_pad(x)) * sampling.weights[:, None]).sum(axis=2)
        return (y.astype(x.dtype, copy=False),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, grid = self.get_retained_inputs()
        gx, ggrid = SpatialTransformerSamplerGrad().apply((x, grid, grad_outputs[0]))
        return gx, ggrid


class SpatialTransformerSamplerGrad(function_node.FunctionNode):
    """Gradients of the sampler with respect to the image and the grid.

    Like Chainer 7.8.1, the sampler supports first-order gradients only: the backward of
    this node raises ``NotImplementedError``.
    """

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, grid, gy = inputs
        xp = backend.get_array_module(x)
        n, c, h, w = x.shape
        sampling = _Sampling(grid, h, w)
        # Image: every sample adds its gradient to its four neighbours, weighted.
        contributions = gy[:, :, None] * sampling.weights[:, None]
        flat_index = sampling.index[:, None] + (xp.arange(n * c).reshape(n, c, 1, 1, 1) * ((h + 2) * (w + 2)))
        gx_pad = _util.scatter_add_flat(n * c * (h + 2) * (w + 2), flat_index, contributions, x.dtype)
        gx = gx_pad.reshape(n, c, h + 2, w + 2)[:, :, 1:-1, 1:-1]
        # Grid: derivative of the bilinear weights along u and v.
        p = sampling.gather(_pad(x))
        top_left, top_right, bottom_left, bottom_right = p[:, :, 0], p[:, :, 1], p[:, :, 2], p[:, :, 3]
        d_u = (1 - sampling.dv)[:, None] * (top_right - top_left) + sampling.dv[:, None] * (bottom_right - bottom_left)
        d_v = (1 - sampling.du)[:, None] * (bottom_left - top_left) + sampling.du[:, None] * (bottom_right - top_right)
        g_u = (gy * d_u).sum(axis=1) * sampling.u_scale * sampling.u_inside
        g_v = (gy * d_v).sum(axis=1) * sampling.v_scale * sampling.v_inside
        ggrid = xp.stack([g_u, g_v], axis=1).astype(grid.dtype, copy=False)
        return xp.ascontiguousarray(gx), ggrid

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        raise NotImplementedError(
            "chainer.functions.spatial_transformer_sampler does not support double backpropagation "
            "(as in Chainer 7.8.1)"
        )


def spatial_transformer_sampler(x: Any, grid: Any, **kwargs: Any) -> variable.Variable:
    """Sample images at the points of a grid by bilinear interpolation (2-D spatial
    transformer).

    ``grid[b, 0, i, j]`` and ``grid[b, 1, i, j]`` are the x (width) and y (height)
    coordinates of output pixel ``(i, j)`` in the image ``x[b]``, normalized so that
    ``-1`` and ``1`` are the centres of the first and last pixels. Pixels outside the
    image read as zero.

    Args:
        x: Images of shape ``(n, c, h, w)`` and a floating dtype.
        grid: Coordinates of shape ``(n, 2, out_h, out_w)`` and the dtype of ``x`` (see
            :func:`spatial_transformer_grid`).

    Returns:
        A variable of shape ``(n, c, out_h, out_w)``. Gradients flow to ``x`` and
        ``grid`` (first order only, as in Chainer 7.8.1).

    Example:
        >>> x = np.arange(4, dtype='f').reshape(1, 1, 2, 2)
        >>> grid = np.zeros((1, 2, 1, 1), 'f')  # the centre of the image
        >>> F.spatial_transformer_sampler(x, grid).array
        array([[[[1.5]]]], dtype=float32)
    """
    if kwargs:
        argument.check_unexpected_kwargs(kwargs, use_cudnn=_USE_CUDNN_MESSAGE)
        argument.assert_kwargs_empty(kwargs)
    return SpatialTransformerSampler().apply((x, grid))[0]


__all__ = ["spatial_transformer_sampler"]
