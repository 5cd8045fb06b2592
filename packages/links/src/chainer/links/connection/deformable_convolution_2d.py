"""Two-dimensional deformable convolution layer."""

from __future__ import annotations

from typing import Any

import chainer
from chainer import functions, initializers, variable
from chainer.links import _checks
from chainer.links.connection import _conv_base, convolution_2d


class DeformableConvolution2DSampler(_conv_base.ConvolutionLinkBase):
    """The sampling half of :class:`DeformableConvolution2D`: a convolution whose kernel
    taps are moved by given offsets (:func:`~chainer.functions.deformable_convolution_2d_sampler`).

    Args:
        in_channels: Number of input channels, or ``None`` to infer it lazily.
        out_channels: Number of output channels.
        ksize: ``k`` or ``(kh, kw)``.
        stride: ``s`` or ``(sy, sx)``.
        pad: ``p`` or ``(ph, pw)``.
        nobias: If ``True``, no bias is used.
        initialW: Initializer of ``W`` of shape ``(out_channels, in_channels, kh, kw)``.
        initial_bias: Initializer of ``b`` of shape ``(out_channels,)``; ``None`` means 0.
    """

    _where = "DeformableConvolution2DSampler"
    _ndim = 2
    # No dilation or groups here.
    _specs = ("in_channels", "out_channels", "ksize", "stride", "pad", "nobias")

    def __init__(
        self,
        in_channels: int | None,
        out_channels: int,
        ksize: Any,
        stride: Any = 1,
        pad: Any = 0,
        nobias: bool = False,
        initialW: Any = None,
        initial_bias: Any = None,
    ) -> None:
        super().__init__()
        self._setup(in_channels, out_channels, ksize, stride, pad, nobias, initialW, initial_bias, 1, 1)

    def forward(self, x: Any, offset: Any) -> variable.Variable:
        """Sample ``x`` at the kernel taps moved by ``offset`` of shape ``(N, 2 kh kw,
        out_h, out_w)`` and convolve."""
        self._ensure_initialized(x)
        return functions.deformable_convolution_2d_sampler(x, offset, self.W, self.b, self.stride, self.pad)


class DeformableConvolution2D(chainer.Chain):
    """Two-dimensional deformable convolution layer (Dai et al., 2017).

    A regular convolution (``offset_conv``) predicts, for every output position, an
    offset for each kernel tap; ``deform_conv`` then convolves the input sampled
    (bilinearly) at the moved taps.

    Args:
        in_channels: Number of input channels, or ``None`` to infer it lazily.
        out_channels: Number of output channels.
        ksize: ``k`` or ``(kh, kw)``.
        stride: ``s`` or ``(sy, sx)`` (both convolutions).
        pad: ``p`` or ``(ph, pw)`` (both convolutions).
        offset_nobias: No bias in the offset convolution.
        offset_initialW: Initializer of the offset convolution's kernel ``(2 kh kw,
            in_channels, kh, kw)``; ``None`` means LeCunNormal. With ``0`` the layer
            starts as a regular convolution.
        offset_initial_bias: Initializer of the offset convolution's bias; ``None``
            means 0.
        deform_nobias: No bias in the deformable convolution.
        deform_initialW: Initializer of the deformable convolution's kernel
            ``(out_channels, in_channels, kh, kw)``; ``None`` means zeros, as in Chainer
            7.8.1 (with the offsets' kernel drawn as LeCunNormal, a seeded program starts
            from 7.8.1's numbers).
        deform_initial_bias: Initializer of its bias; ``None`` means 0.

    Attributes:
        offset_conv (~chainer.links.Convolution2D): Predicts the offsets.
        deform_conv: Holds the kernel ``W`` and bias ``b`` of the deformable convolution.

    Example:
        >>> layer = L.DeformableConvolution2D(2, 3, ksize=3, pad=1)
        >>> layer(np.zeros((1, 2, 5, 5), np.float32)).shape
        (1, 3, 5, 5)
    """

    def __init__(
        self,
        in_channels: int | None,
        out_channels: int,
        ksize: Any,
        stride: Any = 1,
        pad: Any = 0,
        offset_nobias: bool = False,
        offset_initialW: Any = None,
        offset_initial_bias: Any = None,
        deform_nobias: bool = False,
        deform_initialW: Any = None,
        deform_initial_bias: Any = None,
    ) -> None:
        super().__init__()
        kh, kw = _checks.int_tuple(ksize, 2, "ksize", "DeformableConvolution2D", 1)
        if deform_initialW is None:
            deform_initialW = initializers.Zero()
        with self.init_scope():
            self.offset_conv = convolution_2d.Convolution2D(
                in_channels, 2 * kh * kw, (kh, kw), stride, pad, offset_nobias, offset_initialW, offset_initial_bias
            )
            self.deform_conv = DeformableConvolution2DSampler(
                in_channels, out_channels, (kh, kw), stride, pad, deform_nobias, deform_initialW, deform_initial_bias
            )

    def forward(self, x: Any) -> variable.Variable:
        """Predict the offsets from ``x`` (``(N, C, H, W)``) and apply the deformable convolution."""
        offset = self.offset_conv(x)
        return self.deform_conv(x, offset)


__all__ = ["DeformableConvolution2D"]
