"""Region of interest (RoI) max pooling."""

from __future__ import annotations

from typing import Any

from chainer import variable
from chainer.functions.pooling import _roi, roi_average_pooling_2d


class ROIMaxPooling2D(roi_average_pooling_2d.ROIPoolingNode):
    """RoI max pooling; see :func:`roi_max_pooling_2d`.

    Args:
        outsize: ``o`` or ``(out_h, out_w)``.
        spatial_scale: Factor from image to ``x`` coordinates.
    """

    _function_name = "roi_max_pooling_2d"

    @property
    def label(self) -> str:
        return "ROIMaxPooling2D"

    def pixel_map(self, inputs: tuple[Any, ...]) -> tuple[Any, Any, tuple[int, int, int]]:
        x, rois, roi_indices = inputs
        index, valid = self.bins(x, rois, roi_indices)
        _, winner, found = _roi.running_max(x, index, valid)
        return winner[:, None, :], found[:, None, :].astype(x.dtype), (len(rois), *self.outsize)


def roi_max_pooling_2d(
    x: Any, rois: Any, roi_indices: Any, outsize: int | tuple[int, int], spatial_scale: float
) -> variable.Variable:
    """Region of interest (RoI) max pooling: the bins of
    :func:`roi_average_pooling_2d`, each giving the maximum of its pixels (per channel;
    zero for an empty bin).

    Args:
        x: Input ``(N, C, H, W)``.
        rois: Boxes ``(R, 4)`` as ``(y_min, x_min, y_max, x_max)``.
        roi_indices: Integer ``(R,)``: the batch index of each RoI.
        outsize: ``o`` or ``(out_h, out_w)``.
        spatial_scale: Factor from image to ``x`` coordinates.

    Returns:
        Output ``(R, C, out_h, out_w)``; the gradient goes to the winning pixels.

    Example:
        >>> x = np.arange(16, dtype='f').reshape(1, 1, 4, 4)
        >>> F.roi_max_pooling_2d(x, np.array([[0., 0., 4., 4.]], 'f'), np.array([0], 'i'), 2, 1.0).array
        array([[[[ 5.,  7.],
                 [13., 15.]]]], dtype=float32)
    """
    return ROIMaxPooling2D(outsize, spatial_scale).apply((x, rois, roi_indices))[0]


__all__ = ["roi_max_pooling_2d"]
