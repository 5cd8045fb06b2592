"""Region of interest (RoI) average pooling."""

from __future__ import annotations

from typing import Any

from chainer import backend, variable
from chainer.functions.pooling import _roi


def roi_bins(
    rois: Any, roi_indices: Any, x_shape: tuple[int, ...], outsize: tuple[int, int], scale: float, xp: Any
) -> tuple[Any, Any]:
    """Pixels of every bin of every RoI as ``(index, valid)`` candidates ``(M, K)``."""
    _, _, h, w = x_shape
    y1, x1, y2, x2 = _roi.scaled_boxes(rois, scale, xp)
    lo_y, hi_y = _roi.bin_ranges(y1, xp.maximum(y2 - y1, 1.0), outsize[0], h, xp)
    lo_x, hi_x = _roi.bin_ranges(x1, xp.maximum(x2 - x1, 1.0), outsize[1], w, xp)
    return _roi.bin_candidates(lo_y, hi_y, lo_x, hi_x, roi_indices, h, w, xp)


class ROIPoolingNode(_roi.ROINode):
    """The base of :class:`ROIAveragePooling2D` and
    :class:`~chainer.functions.pooling.roi_max_pooling_2d.ROIMaxPooling2D`: the pixels of
    every bin (see :func:`roi_bins`)."""

    _function_name = ""

    def __init__(self, outsize: Any, spatial_scale: Any) -> None:
        where = f"chainer.functions.{self._function_name}"
        self.outsize = _roi.outsize_pair(outsize, where)
        self.spatial_scale = _roi.check_scale(spatial_scale, where)

    def bins(self, x: Any, rois: Any, roi_indices: Any) -> tuple[Any, Any]:
        """:func:`roi_bins` of the inputs with this node's geometry."""
        xp = backend.get_array_module(x)
        return roi_bins(rois, roi_indices, x.shape, self.outsize, self.spatial_scale, xp)


class ROIAveragePooling2D(ROIPoolingNode):
    """RoI average pooling; see :func:`roi_average_pooling_2d`.

    Args:
        outsize: ``o`` or ``(out_h, out_w)``.
        spatial_scale: Factor from image to ``x`` coordinates.
    """

    _function_name = "roi_average_pooling_2d"

    @property
    def label(self) -> str:
        return "ROIAveragePooling2D"

    def pixel_map(self, inputs: tuple[Any, ...]) -> tuple[Any, Any, tuple[int, int, int]]:
        x, rois, roi_indices = inputs
        xp = backend.get_array_module(x)
        index, valid = self.bins(x, rois, roi_indices)
        weight = valid / xp.maximum(valid.sum(axis=1, keepdims=True), 1)
        return index, weight.astype(_roi.K.compute_dtype(x.dtype)), (len(rois), *self.outsize)


def roi_average_pooling_2d(
    x: Any, rois: Any, roi_indices: Any, outsize: int | tuple[int, int], spatial_scale: float
) -> variable.Variable:
    """Region of interest (RoI) average pooling.

    Each RoI ``(y_min, x_min, y_max, x_max)`` is scaled by ``spatial_scale`` (its height
    and width taken as at least one pixel) and split into ``out_h x out_w`` equal bins;
    bin ``(i, j)`` covers the pixels from ``floor`` of its start to ``ceil`` of its end,
    clipped to the image, and outputs their mean (zero for an empty bin).

    Args:
        x: Input ``(N, C, H, W)``.
        rois: Boxes ``(R, 4)`` as ``(y_min, x_min, y_max, x_max)``.
        roi_indices: Integer ``(R,)``: the batch index of each RoI.
        outsize: ``o`` or ``(out_h, out_w)``.
        spatial_scale: Factor from image to ``x`` coordinates.

    Returns:
        Output ``(R, C, out_h, out_w)``.

    Example:
        >>> x = np.arange(16, dtype='f').reshape(1, 1, 4, 4)
        >>> F.roi_average_pooling_2d(x, np.array([[0., 0., 4., 4.]], 'f'), np.array([0], 'i'), 2, 1.0).array
        array([[[[ 2.5,  4.5],
                 [10.5, 12.5]]]], dtype=float32)
    """
    return ROIAveragePooling2D(outsize, spatial_scale).apply((x, rois, roi_indices))[0]


__all__ = ["roi_average_pooling_2d"]
