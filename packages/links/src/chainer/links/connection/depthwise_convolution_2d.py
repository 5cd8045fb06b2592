"""Two-dimensional depthwise convolution layer."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import chainer
from chainer import functions, variable
from chainer.links import _checks


class DepthwiseConvolution2D(chainer.Link):
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
        where = "DepthwiseConvolution2D"
        in_channels = _checks.positive_int(in_channels, "in_channels", where, allow_none=True)
        self.channel_multiplier = _checks.positive_int(channel_multiplier, "channel_multiplier", where)
        self.ksize = _checks.int_tuple(ksize, 2, "ksize", where, 1)
        self.stride = _checks.int_tuple(stride, 2, "stride", where, 1)
        self.pad = _checks.int_tuple(pad, 2, "pad", where, 0)
        with self.init_scope():
            self.W = chainer.Parameter(_checks.initializer(initialW, "initialW", where))
            if nobias:
                self.b = None
            else:
                self.b = chainer.Parameter(_checks.bias_initializer(initial_bias, "initial_bias", where))
        if in_channels is not None:
            self._initialize_params(in_channels)

    @property
    def in_channels(self) -> int | None:
        """Number of input channels (``None`` until the first input fixes it)."""
        return None if self.W.array is None else self.W.shape[1]

    def _initialize_params(self, in_channels: int) -> None:
        where = "DepthwiseConvolution2D"
        _checks.initialize(self.W, (self.channel_multiplier, in_channels, *self.ksize), where)
        if self.b is not None:
            _checks.initialize(self.b, (self.channel_multiplier * in_channels,), where)

    def forward(self, x: Any) -> variable.Variable:
        """Apply the depthwise convolution to ``x`` of shape ``(N, C, H, W)``."""
        if self.W.array is None:
            shape = getattr(x, "shape", ())
            if len(shape) != 4:
                raise ValueError(f"DepthwiseConvolution2D: the input must be 4-dimensional, got shape {shape}")
            self._initialize_params(shape[1])
        return functions.depthwise_convolution_2d(x, self.W, self.b, self.stride, self.pad)

    @property
    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        yield "in_channels", self.in_channels
        yield "channel_multiplier", self.channel_multiplier
        yield "ksize", self.ksize
        yield "stride", self.stride
        yield "pad", self.pad
        yield "nobias", self.b is None


__all__ = ["DepthwiseConvolution2D"]
