"""RoIAlign with average pooling of the bilinear samples."""

from __future__ import annotations

from typing import Any

from chainer import variable
from chainer.functions.pooling import _roi


class ROIAverageAlign2D(_roi.ROIAlignNode):
    """RoIAlign with averaging; see :func:`roi_average_align_2d`.

    Args:
        outsize: ``o`` or ``(out_h, out_w)``.
        spatial_scale: Factor from image to ``x`` coordinates.
        sampling_ratio: Samples per bin along each axis (see the function).
    """

    _function_name = "roi_average_align_2d"

    @property
    def label(self) -> str:
        return "ROIAverageAlign2D"

    def pixel_map(self, inputs: tuple[Any, ...]) -> tuple[Any, Any, tuple[int, int, int]]:
        x, rois, roi_indices = inputs
        index, weight, _, counts = self.samples(x, rois, roi_indices)
        m, samples, taps = index.shape
        weight = (weight / counts[:, None, None]).reshape(m, samples * taps).astype(_roi.K.compute_dtype(x.dtype))
        return index.reshape(m, samples * taps), weight, (len(rois), *self.outsize)


def roi_average_align_2d(
    x: Any,
    rois: Any,
    roi_indices: Any,
    outsize: int | tuple[int, int],
    spatial_scale: float,
    sampling_ratio: int | tuple[int, int] | None = None,
) -> variable.Variable:
    """Region of interest (RoI) align with averaging (He et al., Mask R-CNN).

    Each RoI ``(y_min, x_min, y_max, x_max)``, scaled by ``spatial_scale`` and at least
    one pixel high and wide, is split into ``out_h x out_w`` bins; each bin averages
    ``sampling_ratio`` (per axis; by default ``ceil(bin size)``) regularly spaced
    samples, each read from ``x`` by bilinear interpolation. Samples more than one
    pixel outside the image count as zero; the others are clamped to the border.

    Args:
        x: Input ``(N, C, H, W)``.
        rois: Boxes ``(R, 4)`` as ``(y_min, x_min, y_max, x_max)`` in input-image pixels.
        roi_indices: Integer ``(R,)``: the batch index of each RoI.
        outsize: ``o`` or ``(out_h, out_w)``.
        spatial_scale: Factor from image to ``x`` coordinates (e.g. ``1 / 16``).
        sampling_ratio: Samples per bin along each axis: an int, a pair (an entry may be
            None: the default along that axis), or None (the default, ``ceil(bin size)``).

    Returns:
        Output ``(R, C, out_h, out_w)``. Differentiable with respect to ``x``.

    Example:
        >>> x = np.arange(16, dtype='f').reshape(1, 1, 4, 4)
        >>> rois = np.array([[0., 0., 4., 4.]], 'f')
        >>> F.roi_average_align_2d(x, rois, np.array([0], 'i'), 2, 1.0, 2).shape
        (1, 1, 2, 2)
    """
    return ROIAverageAlign2D(outsize, spatial_scale, sampling_ratio).apply((x, rois, roi_indices))[0]


__all__ = ["roi_average_align_2d"]
