"""Two-dimensional depthwise convolution layer."""

from __future__ import annotations

from typing import Any

from chainer import functions, variable
from chainer.links import _checks
from chainer.links.connection import _conv_base


class DepthwiseConvolution2D(_conv_base.KernelLinkBase):
    """Two-dimensional depthwise convolution layer: holds the kernels and bias of
    :func:`~chainer.functions.depthwise_convolution_2d`.

    Each input channel is convolved with its own ``channel_multiplier`` kernels; output
    channel ``c * channel_multiplier + m`` comes from input channel ``c`` and kernel
    ``W[m, c]``.

    Args:
        in_channels: Number of input channels, or ``None`` to infer it lazily from the
            first input (``W`` and ``b`` are created then).
        channel_multiplier: Number of kernels per input channel.
        ksize: Kernel size: ``k`` or ``(kh, kw)``.
        stride: ``s`` or ``(sy, sx)``.
        pad: ``p`` or ``(ph, pw)``.
        nobias: If ``True``, no bias is used (``b`` is ``None``).
        initialW: Initializer of ``W`` of shape ``(channel_multiplier, in_channels, kh,
            kw)``; ``None`` means :class:`~chainer.initializers.LeCunNormal`.
        initial_bias: Initializer of ``b`` of shape ``(in_channels * channel_multiplier,)``;
            ``None`` means 0.

    Attributes:
        W (~chainer.Parameter): Kernels.
        b (~chainer.Parameter): Bias, or ``None``.

    Example:
        >>> conv = L.DepthwiseConvolution2D(3, 2, ksize=3, pad=1)
        >>> conv(np.zeros((1, 3, 4, 4), np.float32)).shape
        (1, 6, 4, 4)
    """

    _where = "DepthwiseConvolution2D"
    _ndim = 2
    _specs = ("in_channels", "channel_multiplier", "ksize", "stride", "pad", "nobias")

    def __init__(
        self,
        in_channels: int | None,
        channel_multiplier: int,
        ksize: Any,
        stride: Any = 1,
        pad: Any = 0,
        nobias: bool = False,
        initialW: Any = None,
        initial_bias: Any = None,
    ) -> None:
        super().__init__()
        self.channel_multiplier = _checks.positive_int(channel_multiplier, "channel_multiplier", self._where)
        # The bias has one entry per output channel, so it waits for in_channels too.
        in_channels = self._setup_kernel(in_channels, ksize, stride, pad, nobias, initialW, initial_bias, None)
        if in_channels is not None:
            self._initialize_params(in_channels)

    @property
    def in_channels(self) -> int | None:
        """Number of input channels (``None`` until the first input fixes it)."""
        return None if self.W.array is None else self.W.shape[1]

    def _param_shapes(self, in_channels: int) -> tuple[tuple[int, ...], int]:
        return (self.channel_multiplier, in_channels, *self.ksize), self.channel_multiplier * in_channels

    def forward(self, x: Any) -> variable.Variable:
        """Apply the depthwise convolution to ``x`` of shape ``(N, C, H, W)``."""
        if self.W.array is None:
            shape = getattr(x, "shape", ())
            if len(shape) != 4:
                raise ValueError(f"DepthwiseConvolution2D: the input must be 4-dimensional, got shape {shape}")
            self._initialize_params(shape[1])
        return functions.depthwise_convolution_2d(x, self.W, self.b, self.stride, self.pad)


__all__ = ["DepthwiseConvolution2D"]
