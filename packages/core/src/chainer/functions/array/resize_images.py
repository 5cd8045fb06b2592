"""Resizing images by bilinear or nearest-neighbour interpolation."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, function_node, variable
from chainer.functions.array import _util
from chainer.utils import type_check

_MODES = ("bilinear", "nearest")


class _AxisPlan:
    """Interpolation along one axis: the two source indices of every output position
    (``low``, ``high``, on the host) and the weight of ``high`` (``1 - weight`` for ``low``)."""

    def __init__(self, low: Any, weight: Any, in_size: int, linear: bool) -> None:
        self.low = low
        self.high = numpy.minimum(low + 1, in_size - 1)
        self.weight = weight
        self.linear = linear
        self.in_size = in_size

    @classmethod
    def for_mode(cls, in_size: int, out_size: int, mode: str, align_corners: bool) -> _AxisPlan:
        if mode == "nearest":
            pos = numpy.floor(numpy.arange(out_size) * (in_size / out_size))
        elif align_corners:
            pos = numpy.linspace(0.0, in_size - 1, out_size) if out_size > 1 else numpy.zeros(1)
        else:
            pos = numpy.maximum((numpy.arange(out_size) + 0.5) * (in_size / out_size) - 0.5, 0.0)
        low = numpy.minimum(numpy.floor(pos).astype(numpy.intp), in_size - 1)
        return cls(low, pos - low, in_size, mode == "bilinear")

    @classmethod
    def from_arrays(cls, low: Any, weight: Any, in_size: int) -> _AxisPlan:
        host = backend.CpuDevice()
        low = numpy.asarray(host.send(low)).astype(numpy.intp)
        return cls(low, numpy.asarray(host.send(weight), numpy.float64), in_size, True)

    def interpolate(self, x: Any, axis: int) -> Any:
        """Interpolate ``x`` along ``axis`` (``-2`` or ``-1``)."""
        xp = backend.get_array_module(x)
        lo = x.take(xp.asarray(self.low), axis=axis)
        if not self.linear:
            return lo
        weight = xp.asarray(self.weight.astype(x.dtype).reshape((-1, 1) if axis == -2 else (-1,)))
        # lo + (hi - lo) * weight, in place on the fresh gather to keep memory traffic low.
        y = x.take(xp.asarray(self.high), axis=axis)
        y -= lo
        y *= weight
        y += lo
        return y

    def scatter(self, gy: Any, axis: int) -> Any:
        """The adjoint of :meth:`interpolate`: add each output gradient to its sources."""
        xp = backend.get_array_module(gy)
        out_shape = list(gy.shape)
        out_shape[axis] = self.in_size
        gx = xp.zeros(out_shape, gy.dtype)
        gx_first = xp.moveaxis(gx, axis, 0)
        if self.linear:
            weight = self.weight.astype(gy.dtype).reshape((-1, 1) if axis == -2 else (-1,))
            terms = [(self.low, gy * xp.asarray(1 - weight)), (self.high, gy * xp.asarray(weight))]
        else:
            terms = [(self.low, gy)]
        for index, values in terms:
            values = xp.moveaxis(values, axis, 0)
            # The source indices are sorted: the k-th position of every run of equal
            # indices is added in round k, where the indices are distinct, so a plain
            # fancy-index add is exact (no slow ufunc.at).
            rank = numpy.arange(len(index)) - numpy.searchsorted(index, index, side="left")
            for k in range(int(rank.max()) + 1):
                sel = numpy.nonzero(rank == k)[0]
                gx_first[xp.asarray(index[sel])] += values[xp.asarray(sel)]
        return gx


def _plans(in_size: tuple[int, ...], output_shape: tuple[int, int], mode: str, align_corners: bool) -> list[_AxisPlan]:
    return [_AxisPlan.for_mode(n, m, mode, align_corners) for n, m in zip(in_size, output_shape)]


# The interpolation as separate steps on arrays, under Chainer 7's names.


def compute_indices_and_weights(out_size: Any, in_size: Any, mode: str, align_corners: bool, xp: Any) -> tuple:
    """Where each output pixel of :func:`resize_images` takes its values from.

    Args:
        out_size: ``(out_h, out_w)``.
        in_size: ``(h, w)``.
        mode: ``'bilinear'`` or ``'nearest'``.
        align_corners: As for :func:`resize_images`.
        xp: The array module of the results (``numpy`` or ``cupy``).

    Returns:
        ``(v, u, vw, uw)``: the upper source row ``v[i]`` of each output row and the
        weight ``vw[i]`` of the row below it (``v[i] + 1``, clamped to the image), and
        the same for the columns (``u``, ``uw``). The weights are zero for ``'nearest'``.
    """
    h_plan, w_plan = _plans(tuple(in_size), tuple(out_size), mode, align_corners)
    weights = [plan.weight if plan.linear else numpy.zeros_like(plan.weight) for plan in (h_plan, w_plan)]
    return xp.asarray(h_plan.low), xp.asarray(w_plan.low), xp.asarray(weights[0]), xp.asarray(weights[1])


def _interpolate(x: Any, v: Any, u: Any, vw: Any, uw: Any) -> Any:
    h_plan = _AxisPlan.from_arrays(v, vw, x.shape[2])
    w_plan = _AxisPlan.from_arrays(u, uw, x.shape[3])
    return h_plan.interpolate(w_plan.interpolate(x, -1), -2)


def _interpolate_grad(gy: Any, v: Any, u: Any, vw: Any, uw: Any, H: int, W: int) -> Any:
    h_plan = _AxisPlan.from_arrays(v, vw, H)
    w_plan = _AxisPlan.from_arrays(u, uw, W)
    return w_plan.scatter(h_plan.scatter(gy, -2), -1)


def _expect_module(where: str, array: Any, gpu: bool) -> None:
    if (backend.get_array_module(array) is not numpy) != gpu:
        expected = "a CuPy array" if gpu else "a NumPy array"
        raise TypeError(
            f"chainer.functions.array.resize_images.{where}: expected {expected}, got {type(array).__name__}"
        )


def interpolate_bilinear_cpu(x: Any, v: Any, u: Any, vw: Any, uw: Any) -> Any:
    """Images ``x`` (``(n, c, h, w)``, NumPy) interpolated at the positions that
    :func:`compute_indices_and_weights` gives: ``(n, c, len(v), len(u))``."""
    _expect_module("interpolate_bilinear_cpu", x, gpu=False)
    return _interpolate(x, v, u, vw, uw)


def interpolate_bilinear_gpu(x: Any, v: Any, u: Any, vw: Any, uw: Any) -> Any:
    """:func:`interpolate_bilinear_cpu` for CuPy arrays."""
    _expect_module("interpolate_bilinear_gpu", x, gpu=True)
    return _interpolate(x, v, u, vw, uw)


def interpolate_grad_bilinear_cpu(gy: Any, v: Any, u: Any, vw: Any, uw: Any, H: int, W: int) -> Any:
    """The adjoint of :func:`interpolate_bilinear_cpu`: each output gradient added to its
    source pixels with its weight, ``(n, c, H, W)``."""
    _expect_module("interpolate_grad_bilinear_cpu", gy, gpu=False)
    return _interpolate_grad(gy, v, u, vw, uw, H, W)


def interpolate_grad_bilinear_gpu(gy: Any, v: Any, u: Any, vw: Any, uw: Any, H: int, W: int) -> Any:
    """:func:`interpolate_grad_bilinear_cpu` for CuPy arrays."""
    _expect_module("interpolate_grad_bilinear_gpu", gy, gpu=True)
    return _interpolate_grad(gy, v, u, vw, uw, H, W)


class ResizeImages(function_node.FunctionNode):
    """Separable interpolation of ``(n, c, h, w)`` images to ``(n, c, out_h, out_w)``."""

    def __init__(self, output_shape: tuple[int, int], mode: str, align_corners: bool) -> None:
        self.output_shape = output_shape
        self.mode = mode
        self.align_corners = align_corners

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type = in_types[0]
        type_check.expect(x_type.dtype.kind == "f", x_type.ndim == 4)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        self._in_size = x.shape[2:]
        h_plan, w_plan = _plans(self._in_size, self.output_shape, self.mode, self.align_corners)
        return (h_plan.interpolate(w_plan.interpolate(x, -1), -2),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return ResizeImagesGrad(self._in_size, self.output_shape, self.mode, self.align_corners).apply(grad_outputs)


class ResizeImagesGrad(function_node.FunctionNode):
    """Adjoint of :class:`ResizeImages`; its gradient is :func:`resize_images` again."""

    def __init__(self, in_size: tuple[int, ...], output_shape: tuple[int, int], mode: str, align_corners: bool):
        self._in_size = in_size
        self.output_shape = output_shape
        self.mode = mode
        self.align_corners = align_corners

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        h_plan, w_plan = _plans(self._in_size, self.output_shape, self.mode, self.align_corners)
        return (w_plan.scatter(h_plan.scatter(inputs[0], -2), -1),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (resize_images(grad_outputs[0], self.output_shape, mode=self.mode, align_corners=self.align_corners),)


def resize_images(
    x: Any, output_shape: Any, *, mode: str = "bilinear", align_corners: bool = True
) -> variable.Variable:
    """Resize images to the given height and width.

    With ``mode='bilinear'`` output pixel ``(y, x)`` interpolates the four input pixels
    around its source position. With ``align_corners=True`` the corner pixels of input
    and output are aligned (source row ``y * (h - 1) / (out_h - 1)``); with ``False`` the
    pixel areas are aligned (source row ``(y + 0.5) * h / out_h - 0.5``, clamped to the
    image). With ``mode='nearest'`` output pixel ``(y, x)`` copies input pixel
    ``(floor(y * h / out_h), floor(x * w / out_w))`` (``align_corners`` is not used).

    Args:
        x: Variable of shape ``(n, c, h, w)`` and a floating dtype.
        output_shape: ``(out_h, out_w)``, positive ints.
        mode: ``'bilinear'`` or ``'nearest'``.
        align_corners: See above.

    Returns:
        A variable of shape ``(n, c, out_h, out_w)``.

    Example:
        >>> x = np.array([[[[0., 1.]]]], 'f')
        >>> F.resize_images(x, (1, 3)).array
        array([[[[0. , 0.5, 1. ]]]], dtype=float32)
    """
    where = "chainer.functions.resize_images"
    if mode not in _MODES:
        raise ValueError(f"{where}: mode must be one of {_MODES}, got {mode!r}")
    shape = _util.as_int_tuple(output_shape, where, "output_shape", allow_int=False)
    if len(shape) != 2 or min(shape) <= 0:
        raise ValueError(f"{where}: output_shape must be two positive ints (out_h, out_w), got {output_shape!r}")
    return ResizeImages((shape[0], shape[1]), mode, bool(align_corners)).apply((x,))[0]


__all__ = ["resize_images"]
