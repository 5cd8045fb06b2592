"""N-dimensional deconvolution (transposed convolution) layers and the 1-D and 3-D
shorthands."""

from __future__ import annotations

from typing import Any

from chainer.links.connection import _conv_base, _conv_nd


class DeconvolutionND(_conv_nd.NdimConvolutionLinkBase):
    """N-dimensional deconvolution (transposed convolution) layer: holds the kernel and
    bias of :func:`~chainer.functions.deconvolution_nd`.

    ``DeconvolutionND(ndim, in_channels, out_channels, ksize=None, stride=1, pad=0,
    nobias=False, outsize=None, initialW=None, initial_bias=None, dilate=1, groups=1)``

    With ``ksize`` omitted the arguments shift: ``DeconvolutionND(ndim, out_channels,
    ksize)`` takes the input channels from the first input, as does ``in_channels=None``.

    Args:
        ndim: Number of spatial axes.
        in_channels: Number of input channels, or ``None`` to infer it lazily.
        out_channels: Number of output channels.
        ksize: Kernel size: an int or a tuple of ``ndim`` ints.
        stride: Stride: an int or a tuple of ``ndim`` ints.
        pad: Elements cropped from both sides of each output axis.
        nobias: If ``True``, no bias is used (``b`` is ``None``).
        outsize: Output spatial size (a tuple of ``ndim`` ints) to pick among the sizes a
            stride allows; ``None`` gives the smallest one.
        initialW: Initializer of ``W`` of shape ``(in_channels, out_channels / groups,
            *ksize)``; ``None`` means :class:`~chainer.initializers.LeCunNormal`.
        initial_bias: Initializer of ``b`` of shape ``(out_channels,)``; ``None`` means 0.
        dilate: Spacing between kernel taps.
        groups: Number of channel groups.

    Attributes:
        W (~chainer.Parameter): Kernel.
        b (~chainer.Parameter): Bias, or ``None``.

    Example:
        >>> deconv = L.DeconvolutionND(1, 2, 3, ksize=3, stride=2)
        >>> deconv(np.zeros((1, 2, 4), np.float32)).shape
        (1, 3, 9)
    """

    _transposed = True
    _specs = ("ndim", *_conv_base.ConvolutionLinkBase._specs, "outsize")
    _function_name = "deconvolution_nd"
    _mode_argument = "outsize"

    def __init__(
        self,
        ndim: int,
        in_channels: int | None,
        out_channels: int,
        ksize: Any = None,
        stride: Any = 1,
        pad: Any = 0,
        nobias: bool = False,
        outsize: Any = None,
        initialW: Any = None,
        initial_bias: Any = None,
        dilate: Any = 1,
        groups: int = 1,
    ) -> None:
        super().__init__(ndim)
        self._set_outsize(outsize)
        self._setup(in_channels, out_channels, ksize, stride, pad, nobias, initialW, initial_bias, dilate, groups)


class _FixedNdimDeconvolution(DeconvolutionND):
    """:class:`DeconvolutionND` with the number of spatial axes fixed by the subclass."""

    _fixed_ndim: int
    _specs = DeconvolutionND._specs[1:]

    def __init__(
        self,
        in_channels: int | None,
        out_channels: int,
        ksize: Any,
        stride: Any = 1,
        pad: Any = 0,
        nobias: bool = False,
        outsize: Any = None,
        initialW: Any = None,
        initial_bias: Any = None,
        dilate: Any = 1,
        groups: int = 1,
    ) -> None:
        super().__init__(
            self._fixed_ndim,
            in_channels,
            out_channels,
            ksize,
            stride,
            pad,
            nobias,
            outsize,
            initialW,
            initial_bias,
            dilate,
            groups,
        )


class Deconvolution1D(_FixedNdimDeconvolution):
    """One-dimensional deconvolution layer: :class:`DeconvolutionND` with ``ndim=1``.

    ``Deconvolution1D(in_channels, out_channels, ksize, stride=1, pad=0, nobias=False,
    outsize=None, initialW=None, initial_bias=None, dilate=1, groups=1)``

    Example:
        >>> L.Deconvolution1D(2, 3, 3)(np.zeros((4, 2, 5), np.float32)).shape
        (4, 3, 7)
    """

    _fixed_ndim = 1


class Deconvolution3D(_FixedNdimDeconvolution):
    """Three-dimensional deconvolution layer: :class:`DeconvolutionND` with ``ndim=3``.

    ``Deconvolution3D(in_channels, out_channels, ksize, stride=1, pad=0, nobias=False,
    outsize=None, initialW=None, initial_bias=None, dilate=1, groups=1)``

    Example:
        >>> L.Deconvolution3D(1, 2, 2)(np.zeros((1, 1, 2, 2, 2), np.float32)).shape
        (1, 2, 3, 3, 3)
    """

    _fixed_ndim = 3


__all__ = ["Deconvolution1D", "Deconvolution3D", "DeconvolutionND"]
