"""Region of interest (RoI) max pooling."""

from __future__ import annotations

from typing import Any

from chainer import backend, variable
from chainer.functions.pooling import _roi, roi_average_pooling_2d


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
    where = "chainer.functions.roi_max_pooling_2d"
    label = "ROIMaxPooling2D"
    x = variable.as_variable(x)
    rois, roi_indices = _roi.as_array(rois), _roi.as_array(roi_indices)
    _roi.check_inputs(x.array, rois, roi_indices, label)
    oh, ow = _roi.outsize_pair(outsize, where)
    scale = _roi.check_scale(spatial_scale, where)
    xp = backend.get_array_module(x.array)
    index, valid = roi_average_pooling_2d.roi_bins(rois, roi_indices, x.shape, (oh, ow), scale, xp)
    _, winner, found = _roi.running_max(x.array, index, valid)
    node = _roi.PixelGather(winner[:, None, :], found[:, None, :].astype(x.dtype), (len(rois), oh, ow), label)
    return node.apply((x,))[0]


__all__ = ["roi_max_pooling_2d"]
