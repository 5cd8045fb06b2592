"""Bilinear resampling filters for (de)convolution weights: UpsamplingDeconvFilter and
DownsamplingConvFilter."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import initializer
from chainer.initializers import _util


def _linear_kernel_1d(k: int) -> numpy.ndarray:
    # A triangle ("tent") of half-width `factor`, centred on the kernel: the weights of
    # linear interpolation when the stride is `factor`.
    factor = (k + 1) // 2
    center = factor - 1 if k % 2 == 1 else factor - 0.5
    return 1.0 - numpy.abs(numpy.arange(k) - center) / factor


def _bilinear_kernel(kh: int, kw: int) -> numpy.ndarray:
    return numpy.outer(_linear_kernel_1d(kh), _linear_kernel_1d(kw))


class _ResamplingFilter(initializer.Initializer):
    _axes_doc = ""

    def __init__(self, interpolation: str = "linear", dtype: Any = None) -> None:
        if interpolation != "linear":
            raise ValueError(
                f"{type(self).__name__}: interpolation must be 'linear' (the only supported one), got {interpolation!r}"
            )
        self.interpolation = interpolation
        super().__init__(dtype)

    def _kernel(self, kh: int, kw: int) -> numpy.ndarray:
        raise NotImplementedError

    def __call__(self, array: Any) -> None:
        name = type(self).__name__
        _util.check_floating(self, array)
        if array.ndim != 4:
            raise ValueError(f"{name}: the array must be 4-dimensional {self._axes_doc}, got shape {array.shape}")
        c0, c1, kh, kw = array.shape
        if c1 != 1 and c0 != c1:
            raise ValueError(
                f"{name}: the first two axes of the array {self._axes_doc} must be equal (each channel filters "
                f"itself) or the second must be 1 (depthwise), got shape {array.shape}"
            )
        weight = numpy.zeros(array.shape, dtype=numpy.float64)
        if kh and kw:
            kernel = self._kernel(kh, kw)
            channels = numpy.arange(c0)
            weight[channels, channels if c1 != 1 else 0] = kernel
        _util.fill(array, weight)


class UpsamplingDeconvFilter(_ResamplingFilter):
    """Fills a deconvolution weight with a bilinear upsampling filter.

    The weight ``(in_channels, out_channels, kh, kw)`` maps each channel to itself (or,
    with ``out_channels == 1``, a depthwise weight filters every channel) with the tent
    kernel of linear interpolation: per axis of size ``k``, with ``f = (k + 1) // 2`` and
    ``c = f - 1`` (``k`` odd) or ``f - 0.5`` (``k`` even), ``w[i] = 1 - |i - c| / f``. For
    an upsampling by an integer factor ``f``, use ``k = 2 * f - f % 2`` with
    :class:`~chainer.links.Deconvolution2D` of stride ``f`` and pad ``ceil((f - 1) / 2)``:
    the output is ``f`` times larger and interpolates the input bilinearly.

    Args:
        interpolation: ``'linear'`` (the only one supported).
        dtype: Expected dtype of the target array.
    """

    _axes_doc = "(in_channels, out_channels, kh, kw)"

    def _kernel(self, kh: int, kw: int) -> numpy.ndarray:
        return _bilinear_kernel(kh, kw)


class DownsamplingConvFilter(_ResamplingFilter):
    """Fills a convolution weight with a bilinear downsampling (anti-aliasing) filter.

    The weight ``(out_channels, in_channels, kh, kw)`` maps each channel to itself (or,
    with ``in_channels == 1``, a depthwise weight filters every channel) with the tent
    kernel of :class:`UpsamplingDeconvFilter` normalized to sum to one, so a constant
    image keeps its value. Use it with a stride of ``(k + 1) // 2``.

    Args:
        interpolation: ``'linear'`` (the only one supported).
        dtype: Expected dtype of the target array.
    """

    _axes_doc = "(out_channels, in_channels, kh, kw)"

    def _kernel(self, kh: int, kw: int) -> numpy.ndarray:
        kernel = _bilinear_kernel(kh, kw)
        return kernel / kernel.sum()


__all__ = ["DownsamplingConvFilter", "UpsamplingDeconvFilter"]
