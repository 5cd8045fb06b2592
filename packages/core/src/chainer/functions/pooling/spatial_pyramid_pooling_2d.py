"""Spatial pyramid pooling."""

from __future__ import annotations

import math
from typing import Any

from chainer import variable
from chainer.functions.array import concat, reshape
from chainer.functions.pooling import max_pooling_nd


def spatial_pyramid_pooling_2d(x: Any, pyramid_height: int, pooling: str | None = None) -> variable.Variable:
    """Spatial pyramid pooling (He et al., 2014): max pooling at several grid sizes,
    flattened and concatenated, so that any image size gives a fixed-length output.

    Level ``l`` (``0 <= l < pyramid_height``) splits the image into about ``2^l x 2^l``
    bins: window ``ceil(H / 2^l)`` (and likewise for the width), stride equal to the
    window, and the remainder split as padding on both sides.

    Args:
        x: Input variable ``(N, C, H, W)``.
        pyramid_height: Number of pyramid levels (a positive int).
        pooling: ``'max'``, the only pooling supported; it must be given.

    Returns:
        Output of shape ``(N, C * sum_l 4^l, 1, 1)`` (fewer bins on levels whose grid is
        finer than the image).

    Example:
        >>> x = np.ones((2, 3, 8, 8), 'f')
        >>> F.spatial_pyramid_pooling_2d(x, 3, 'max').shape
        (2, 63, 1, 1)
    """
    where = "chainer.functions.spatial_pyramid_pooling_2d"
    if pooling is None:
        # As in Chainer: the pooling must be named (it once had a default that changed).
        raise ValueError(f"{where}: pooling must be given; the only one supported is 'max'")
    if pooling != "max":
        raise ValueError(f"{where}: unsupported pooling {pooling!r}; only 'max' is supported")
    if not isinstance(pyramid_height, int) or isinstance(pyramid_height, bool) or pyramid_height < 1:
        raise ValueError(f"{where}: pyramid_height must be a positive int, got {pyramid_height!r}")
    x = variable.as_variable(x)
    if x.ndim != 4:
        raise ValueError(f"{where}: x must be 4-dimensional (N, C, H, W), got shape {x.shape}")
    n, _, h, w = x.shape
    levels = []
    for level in range(pyramid_height):
        bins = 2**level
        kh, kw = math.ceil(h / bins), math.ceil(w / bins)
        ph, pw = (kh * bins - h) // 2, (kw * bins - w) // 2
        y = max_pooling_nd.MaxPooling2D((kh, kw), (kh, kw), (ph, pw), True).apply((x,))[0]
        levels.append(reshape.reshape(y, (n, -1)))
    y = levels[0] if len(levels) == 1 else concat.concat(levels, axis=1)
    return reshape.reshape(y, (n, -1, 1, 1))


__all__ = ["spatial_pyramid_pooling_2d"]
