"""Image processing helpers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy


def oversample(images: Any, crop_dims: Sequence[int]) -> numpy.ndarray[Any, Any]:
    """Ten crops of each image: the four corners and the center, and their mirror images.

    Args:
        images: Images of shape ``(N, C, H, W)``.
        crop_dims: ``(h, w)``, the size of a crop.

    Returns:
        An array of shape ``(10 * N, C, h, w)``: for each image the top-left, top-right,
        bottom-left, bottom-right and center crops, then the same five flipped
        left to right.
    """
    images = numpy.asarray(images)
    if images.ndim != 4:
        raise ValueError(f"oversample: images must have shape (N, C, H, W), got {images.shape}")
    height, width = images.shape[2:]
    crop_h, crop_w = (int(d) for d in crop_dims)
    if not (0 < crop_h <= height and 0 < crop_w <= width):
        raise ValueError(f"oversample: crop_dims {tuple(crop_dims)} must fit in the images' {(height, width)}")
    corners = [
        (0, 0),
        (0, width - crop_w),
        (height - crop_h, 0),
        (height - crop_h, width - crop_w),
        ((height - crop_h) // 2, (width - crop_w) // 2),
    ]
    crops = numpy.empty((len(images), 10, images.shape[1], crop_h, crop_w), images.dtype)
    for k, (top, left) in enumerate(corners):
        crop = images[:, :, top : top + crop_h, left : left + crop_w]
        crops[:, k] = crop
        crops[:, k + 5] = crop[:, :, :, ::-1]
    return crops.reshape((-1,) + crops.shape[2:])
