"""RoIAlign with max pooling of the bilinear samples."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, variable
from chainer.functions.pooling import _roi


class ROIMaxAlign2D(_roi.ROIAlignNode):
    """RoIAlign with the maximum of the samples; see :func:`roi_max_align_2d`.

    Args:
        outsize: ``o`` or ``(out_h, out_w)``.
        spatial_scale: Factor from image to ``x`` coordinates.
        sampling_ratio: Samples per bin along each axis (see the function).
    """

    _function_name = "roi_max_align_2d"

    @property
    def label(self) -> str:
        return "ROIMaxAlign2D"

    def pixel_map(self, inputs: tuple[Any, ...]) -> tuple[Any, Any, tuple[int, int, int]]:
        x, rois, roi_indices = inputs
        xp = backend.get_array_module(x)
        index, weight, valid, _ = self.samples(x, rois, roi_indices)
        m, samples = valid.shape
        c = x.shape[1]
        # Value of every sample per channel, then the winner per (bin, channel).
        best = xp.full((m, c), -numpy.inf, numpy.float64)
        winner = xp.zeros((m, c), numpy.int64)
        for s in range(samples):
            value = _roi.gather(x, index[:, s], weight[:, s].astype(x.dtype)).astype(numpy.float64)
            value = xp.where(valid[:, s, None], value, -numpy.inf)
            better = value > best
            best = xp.where(better, value, best)
            winner = xp.where(better, s, winner)
        found = best > -numpy.inf
        pick = winner[:, None, :]  # (M, 1, C) -> taps of the winning sample
        taps_index = xp.take_along_axis(index.transpose(0, 2, 1)[:, :, :, None], pick[:, :, None, :], axis=2)
        taps_weight = xp.take_along_axis(weight.transpose(0, 2, 1)[:, :, :, None], pick[:, :, None, :], axis=2)
        taps_index = taps_index[:, :, 0, :]  # (M, 4, C)
        taps_weight = taps_weight[:, :, 0, :] * found[:, None, :]
        return taps_index, taps_weight.astype(_roi.K.compute_dtype(x.dtype)), (len(rois), *self.outsize)


def roi_max_align_2d(
    x: Any,
    rois: Any,
    roi_indices: Any,
    outsize: int | tuple[int, int],
    spatial_scale: float,
    sampling_ratio: int | tuple[int, int] | None = None,
) -> variable.Variable:
    """Region of interest (RoI) align with max pooling: like
    :func:`roi_average_align_2d`, but each bin takes the largest of its bilinear
    samples (per channel) instead of their mean. Samples more than one pixel outside
    the image are skipped; a bin without any sample gives zero.

    Args:
        x: Input ``(N, C, H, W)``.
        rois: Boxes ``(R, 4)`` as ``(y_min, x_min, y_max, x_max)``.
        roi_indices: Integer ``(R,)`` batch indices.
        outsize: ``o`` or ``(out_h, out_w)``.
        spatial_scale: Factor from image to ``x`` coordinates.
        sampling_ratio: Samples per bin along each axis: an int, a pair (an entry may be
            None: the default along that axis), or None (the default, ``ceil(bin size)``).
            for ``ceil(bin size)``.

    Returns:
        Output ``(R, C, out_h, out_w)``; the gradient goes to the four pixels that
        interpolate the winning sample.

    Example:
        >>> x = np.arange(16, dtype='f').reshape(1, 1, 4, 4)
        >>> rois = np.array([[0., 0., 4., 4.]], 'f')
        >>> F.roi_max_align_2d(x, rois, np.array([0], 'i'), 1, 1.0, 2).shape
        (1, 1, 1, 1)
    """
    return ROIMaxAlign2D(outsize, spatial_scale, sampling_ratio).apply((x, rois, roi_indices))[0]


__all__ = ["roi_max_align_2d"]
