"""Two-dimensional dilated convolution layer."""

from __future__ import annotations

from typing import Any

from chainer import functions, variable
from chainer.links.connection import _conv_base


class DilatedConvolution2D(_conv_base.ConvolutionLinkBase):
    """Two-dimensional dilated ("atrous") convolution layer: holds the kernel and bias of
    :func:`~chainer.functions.dilated_convolution_2d`.

    ``DilatedConvolution2D(in_channels, out_channels, ksize=None, stride=1, pad=0,
    dilate=1, nobias=False, initialW=None, initial_bias=None)``

    With ``ksize`` omitted the arguments shift: ``DilatedConvolution2D(out_channels,
    ksize)`` takes the input channels from the first input, as does ``in_channels=None``.

    Args:
        in_channels: Number of input channels, or ``None`` to infer it lazily.
        out_channels: Number of output channels.
        ksize: Kernel size: ``k`` or ``(kh, kw)``.
        stride: ``s`` or ``(sy, sx)``.
        pad: ``p`` or ``(ph, pw)``.
        dilate: ``d`` or ``(dy, dx)``: spacing between kernel taps.
        nobias: If ``True``, no bias is used (``b`` is ``None``).
        initialW: Initializer of ``W`` of shape ``(out_channels, in_channels, kh, kw)``;
            ``None`` means :class:`~chainer.initializers.LeCunNormal`.
        initial_bias: Initializer of ``b`` of shape ``(out_channels,)``; ``None`` means 0.

    Attributes:
        W (~chainer.Parameter): Kernel.
        b (~chainer.Parameter): Bias, or ``None``.

    Example:
        >>> conv = L.DilatedConvolution2D(1, 2, ksize=3, dilate=2)
        >>> conv(np.zeros((1, 1, 7, 7), np.float32)).shape
        (1, 2, 3, 3)
    """

    _where = "DilatedConvolution2D"
    _ndim = 2

    def __init__(
        self,
        in_channels: int | None,
        out_channels: int,
        ksize: Any = None,
        stride: Any = 1,
        pad: Any = 0,
        dilate: Any = 1,
        nobias: bool = False,
        initialW: Any = None,
        initial_bias: Any = None,
    ) -> None:
        super().__init__()
        self._setup(in_channels, out_channels, ksize, stride, pad, nobias, initialW, initial_bias, dilate, 1)

    def forward(self, x: Any) -> variable.Variable:
        """Apply the dilated convolution to ``x`` of shape ``(N, C, H, W)``."""
        self._ensure_initialized(x)
        return functions.dilated_convolution_2d(x, self.W, self.b, self.stride, self.pad, self.dilate)


__all__ = ["DilatedConvolution2D"]
