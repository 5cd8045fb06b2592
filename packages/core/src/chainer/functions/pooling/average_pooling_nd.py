"""N-dimensional average pooling, and its 1-D and 3-D forms."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

from chainer import backend, variable
from chainer.backends import intel64
from chainer.functions.pooling import _pooling_kernels as P
from chainer.functions.pooling import max_pooling_nd, pooling_nd


class AveragePoolingND(pooling_nd._PoolingND):
    """Mean over each window. Padding counts as zeros (``pad_value=0``) or is left out
    of the mean (``pad_value=None``)."""

    def __init__(
        self,
        ndim: int,
        ksize: int | Sequence[int],
        stride: int | Sequence[int] | None = None,
        pad: int | Sequence[int] = 0,
        pad_value: float | None = 0,
    ) -> None:
        pooling_nd._PoolingND.__init__(self, ndim, ksize, stride, pad, False)
        self.pad_value = pad_value

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        geometry = P.Geometry.from_input(x.shape[2:], self.ksize, self.stride, self.pad, False)
        P.check_outsize(geometry, self.label)
        if self.pad_value is None and (any(self.pad) or any(geometry.after)):
            xp = backend.get_array_module(x)
            weight: Any = xp.asarray(1.0 / geometry.valid_counts(), x.dtype)
        else:
            weight = 1.0 / P.K.size(self.ksize)
        self.geometry = geometry
        self.weight = weight
        inside_only = self.pad_value is None
        if (
            type(x) is numpy.ndarray
            and (y := intel64.run("average_pooling_forward", x, geometry, inside_only)) is not None
        ):
            return (y,)
        y = P.window_sum(x, geometry)
        y *= weight
        return (y,)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return AveragePoolingNDGrad(self).apply(grad_outputs)


class AveragePoolingNDGrad(P.WindowSpread):
    """The gradient of an :class:`AveragePoolingND` node after its forward: each window's
    gradient is spread over its elements with the weights of the mean. Its own gradient
    is the average pooling again."""

    def __init__(self, apoolnd: AveragePoolingND) -> None:
        geometry = getattr(apoolnd, "geometry", None)
        if geometry is None:
            raise RuntimeError(f"{type(self).__name__}: the pooling node has not run its forward pass yet")
        super().__init__(geometry, apoolnd.weight, f"{apoolnd.label}Grad")
        self._inside_only = apoolnd.pad_value is None

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (gy,) = inputs
        args = (gy, self.geometry, self._inside_only)
        if type(gy) is numpy.ndarray and (gx := intel64.run("average_pooling_backward", *args)) is not None:
            return (gx,)
        return super().forward(inputs)


def check_pad_value(pad_value: Any, where: str) -> None:
    if pad_value is not None and not (isinstance(pad_value, (int, float)) and pad_value == 0):
        raise ValueError(f"{where}: pad_value must be 0 or None, got {pad_value!r}")


def _average_pooling(
    x: Any, ksize: Any, stride: Any, pad: Any, pad_value: Any, ndim: int, where: str
) -> variable.Variable:
    k, s, p = P.pooling_args(ndim, ksize, stride, pad, where)
    check_pad_value(pad_value, where)
    return AveragePoolingND(ndim, k, s, p, pad_value).apply((x,))[0]


def average_pooling_nd(
    x: Any,
    ksize: int | Sequence[int],
    stride: int | Sequence[int] | None = None,
    pad: int | Sequence[int] = 0,
    pad_value: float | None = 0,
) -> variable.Variable:
    """N-dimensional average pooling: the mean of each window of ``x``.

    Args:
        x: Input of shape ``(N, C, S_1, ..., S_d)``.
        ksize: Window size (an int or ``d`` ints).
        stride: Window stride; ``None`` means ``ksize``.
        pad: Padding on both sides of each spatial axis.
        pad_value: ``0`` (default): padded elements count as zeros, so every window is
            divided by ``prod(ksize)``; ``None``: padded elements are left out and each
            window is divided by its number of real elements.

    Returns:
        Output of shape ``(N, C, L_1, ..., L_d)``, ``L_i = (S_i + 2 p_i - k_i) // s_i + 1``.

    Example:
        >>> x = np.arange(6, dtype='f').reshape(1, 1, 6)
        >>> F.average_pooling_nd(x, 2).array
        array([[[0.5, 2.5, 4.5]]], dtype=float32)
    """
    ndim = max(1, len(getattr(x, "shape", ())) - 2)
    return _average_pooling(x, ksize, stride, pad, pad_value, ndim, "chainer.functions.average_pooling_nd")


def average_pooling_1d(
    x: Any,
    ksize: int | Sequence[int],
    stride: int | Sequence[int] | None = None,
    pad: int | Sequence[int] = 0,
    pad_value: float | None = 0,
) -> variable.Variable:
    """1-dimensional average pooling: :func:`average_pooling_nd` on ``(N, C, S)``."""
    where = "chainer.functions.average_pooling_1d"
    max_pooling_nd.check_spatial_ndim(x, 1, where)
    return _average_pooling(x, ksize, stride, pad, pad_value, 1, where)


def average_pooling_3d(
    x: Any,
    ksize: int | Sequence[int],
    stride: int | Sequence[int] | None = None,
    pad: int | Sequence[int] = 0,
    pad_value: float | None = 0,
) -> variable.Variable:
    """3-dimensional average pooling: :func:`average_pooling_nd` on ``(N, C, D, H, W)``."""
    where = "chainer.functions.average_pooling_3d"
    max_pooling_nd.check_spatial_ndim(x, 3, where)
    return _average_pooling(x, ksize, stride, pad, pad_value, 3, where)


__all__ = ["average_pooling_1d", "average_pooling_3d", "average_pooling_nd"]
