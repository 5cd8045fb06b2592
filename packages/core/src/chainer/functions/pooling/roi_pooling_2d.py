"""Region of interest (RoI) pooling of Fast R-CNN."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, variable
from chainer.functions.pooling import _roi
from chainer.utils import type_check


def _round_half_away(v: Any, xp: Any) -> Any:
    return xp.sign(v) * xp.floor(xp.abs(v) + 0.5)


class ROIPooling2D(_roi.ROINode):
    """Fast R-CNN's RoI max pooling of ``(x, rois)``; see :func:`roi_pooling_2d`.

    Args:
        outh: Output height.
        outw: Output width.
        spatial_scale: Factor from image to ``x`` coordinates.
    """

    def __init__(self, outh: int, outw: int, spatial_scale: float) -> None:
        where = "chainer.functions.roi_pooling_2d"
        self.outh, self.outw = _roi.outsize_pair((outh, outw), where)
        self.spatial_scale = _roi.check_scale(spatial_scale, where)

    @property
    def label(self) -> str:
        return "ROIPooling2D"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x", "rois"))
        x_type, rois_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            x_type.ndim == 4,
            rois_type.dtype.kind == "f",
            rois_type.ndim == 2,
            rois_type.shape[1] == 5,
        )

    def pixel_map(self, inputs: tuple[Any, ...]) -> tuple[Any, Any, tuple[int, int, int]]:
        x, rois = inputs
        xp = backend.get_array_module(x)
        oh, ow, scale = self.outh, self.outw, self.spatial_scale
        n, _, h, w = x.shape
        r = xp.asarray(rois, numpy.float64)
        batch = r[:, 0].astype(numpy.int64)
        if len(batch) and (int(batch.min()) < 0 or int(batch.max()) >= n or not bool((r[:, 0] == batch).all())):
            raise ValueError(
                f"chainer.functions.roi_pooling_2d: rois[:, 0] must be whole batch indices in [0, {n}), got {r[:, 0]}"
            )
        x1, y1, x2, y2 = (_round_half_away(r[:, i] * scale, xp) for i in (1, 2, 3, 4))
        height = xp.maximum(y2 - y1 + 1, 1)
        width = xp.maximum(x2 - x1 + 1, 1)
        # Bin edges relative to the box are floored/ceiled first, then shifted by its start.
        steps_y, steps_x = xp.arange(oh)[None], xp.arange(ow)[None]
        lo_y = xp.clip(xp.floor(steps_y * (height / oh)[:, None]) + y1[:, None], 0, h).astype(numpy.int64)
        hi_y = xp.clip(xp.ceil((steps_y + 1) * (height / oh)[:, None]) + y1[:, None], 0, h).astype(numpy.int64)
        lo_x = xp.clip(xp.floor(steps_x * (width / ow)[:, None]) + x1[:, None], 0, w).astype(numpy.int64)
        hi_x = xp.clip(xp.ceil((steps_x + 1) * (width / ow)[:, None]) + x1[:, None], 0, w).astype(numpy.int64)
        index, valid = _roi.bin_candidates(lo_y, hi_y, lo_x, hi_x, batch, h, w, xp)
        _, winner, found = _roi.running_max(x, index, valid)
        return winner[:, None, :], found[:, None, :].astype(x.dtype), (len(rois), oh, ow)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gx = ROIPooling2DGrad(self).apply(grad_outputs)[0]
        return tuple(gx if i == 0 else None for i in indexes)


class ROIPooling2DGrad(_roi.PixelScatter):
    """The gradient of a :class:`ROIPooling2D` node after its forward: each bin's
    gradient goes to the pixel that was its maximum."""

    def __init__(self, roi_pooling: ROIPooling2D) -> None:
        if getattr(roi_pooling, "index", None) is None:
            raise RuntimeError(f"{type(self).__name__}: the ROI pooling node has not run its forward pass yet")
        super().__init__(roi_pooling.index, roi_pooling.weight, roi_pooling.x_shape, "ROIPooling2DGrad")


def roi_pooling_2d(x: Any, rois: Any, outh: int, outw: int, spatial_scale: float) -> variable.Variable:
    """Region of interest (RoI) max pooling as in Fast R-CNN (Girshick, 2015).

    Each row of ``rois`` is ``(batch_index, x_min, y_min, x_max, y_max)``. The corners
    are scaled by ``spatial_scale`` and rounded to whole pixels (half away from zero);
    the box, inclusive of its end pixels and at least one pixel wide, is split into
    ``outh x outw`` bins; bin ``(i, j)`` covers rows ``floor(i * h / outh)`` to
    ``ceil((i + 1) * h / outh)`` (exclusive) from the box's start, clipped to the image,
    and outputs their maximum per channel (zero for an empty bin).

    Args:
        x: Input ``(N, C, H, W)``.
        rois: ``(R, 5)`` array of ``(batch_index, x_min, y_min, x_max, y_max)``.
        outh: Output height.
        outw: Output width.
        spatial_scale: Factor from image to ``x`` coordinates.

    Returns:
        Output ``(R, C, outh, outw)``; the gradient goes to the winning pixels.

    Example:
        >>> x = np.arange(16, dtype='f').reshape(1, 1, 4, 4)
        >>> F.roi_pooling_2d(x, np.array([[0, 0, 0, 3, 3]], 'f'), 2, 2, 1.0).array
        array([[[[ 5.,  7.],
                 [13., 15.]]]], dtype=float32)
    """
    return ROIPooling2D(outh, outw, spatial_scale).apply((x, rois))[0]


__all__ = ["roi_pooling_2d"]
