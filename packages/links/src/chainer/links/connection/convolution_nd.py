"""N-dimensional convolution layers (and the 1-D and 3-D shorthands)."""

from __future__ import annotations

from typing import Any

from chainer.links import _checks
from chainer.links.connection import _conv_base, _conv_nd


class ConvolutionND(_conv_nd.NdimConvolutionLinkBase):
    """N-dimensional convolution layer: holds the kernel and bias of
    :func:`~chainer.functions.convolution_nd`.

    ``ConvolutionND(ndim, in_channels, out_channels, ksize=None, stride=1, pad=0,
    nobias=False, initialW=None, initial_bias=None, cover_all=False, dilate=1, groups=1)``

    With ``ksize`` omitted the arguments shift: ``ConvolutionND(ndim, out_channels,
    ksize)`` takes the input channels from the first input, as does ``in_channels=None``.

    Args:
        ndim: Number of spatial axes.
        in_channels: Number of input channels, or ``None`` to infer it lazily.
        out_channels: Number of output channels.
        ksize: Kernel size: an int or a tuple of ``ndim`` ints.
        stride: Stride: an int or a tuple of ``ndim`` ints.
        pad: Zero padding on both sides: an int or a tuple of ``ndim`` ints.
        nobias: If ``True``, no bias is used (``b`` is ``None``).
        initialW: Initializer of ``W`` of shape ``(out_channels, in_channels / groups,
            *ksize)``; ``None`` means :class:`~chainer.initializers.LeCunNormal`.
        initial_bias: Initializer of ``b`` of shape ``(out_channels,)``; ``None`` means 0.
        cover_all: Add output windows so that every input element is covered.
        dilate: Spacing between kernel taps: an int or a tuple of ``ndim`` ints.
        groups: Number of channel groups.

    Attributes:
        W (~chainer.Parameter): Kernel.
        b (~chainer.Parameter): Bias, or ``None``.

    Example:
        >>> conv = L.ConvolutionND(3, 2, 4, ksize=2)
        >>> conv(np.zeros((1, 2, 3, 3, 3), np.float32)).shape
        (1, 4, 2, 2, 2)
    """

    _specs = ("ndim", *_conv_base.ConvolutionLinkBase._specs, "cover_all")
    _function_name = "convolution_nd"
    _mode_argument = "cover_all"

    def __init__(
        self,
        ndim: int,
        in_channels: int | None,
        out_channels: int,
        ksize: Any = None,
        stride: Any = 1,
        pad: Any = 0,
        nobias: bool = False,
        initialW: Any = None,
        initial_bias: Any = None,
        cover_all: bool = False,
        dilate: Any = 1,
        groups: int = 1,
    ) -> None:
        super().__init__(ndim)
        self.cover_all = bool(cover_all)
        self._setup(in_channels, out_channels, ksize, stride, pad, nobias, initialW, initial_bias, dilate, groups)

    @classmethod
    def from_params(
        cls,
        W: Any,
        b: Any = None,
        stride: Any = 1,
        pad: Any = 0,
        nobias: bool = False,
        cover_all: bool = False,
        dilate: Any = 1,
        groups: int = 1,
    ) -> ConvolutionND:
        """A layer whose kernel and bias start as copies of ``W`` (``(out_channels,
        in_channels / groups, *ksize)``; its number of axes gives ``ndim``) and ``b``, on
        the device of ``W``."""
        fixed_ndim = getattr(cls, "_fixed_ndim", None)
        w, bias, in_channels, out_channels, ksize = cls._kernel_from_params(W, b, nobias, groups, fixed_ndim)
        args = (in_channels, out_channels, ksize, stride, pad, nobias, w, bias, cover_all, dilate, groups)
        link = cls(*args) if fixed_ndim is not None else cls(len(ksize), *args)
        return _checks.from_params_link(link, W)


class _FixedNdimConvolution(ConvolutionND):
    """:class:`ConvolutionND` with the number of spatial axes fixed by the subclass."""

    _fixed_ndim: int
    _specs = ConvolutionND._specs[1:]

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
        cover_all: bool = False,
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
            initialW,
            initial_bias,
            cover_all,
            dilate,
            groups,
        )


class Convolution1D(_FixedNdimConvolution):
    """One-dimensional convolution layer: :class:`ConvolutionND` with ``ndim=1``.

    ``Convolution1D(in_channels, out_channels, ksize, stride=1, pad=0, nobias=False,
    initialW=None, initial_bias=None, cover_all=False, dilate=1, groups=1)``

    Example:
        >>> L.Convolution1D(2, 3, 3)(np.zeros((4, 2, 5), np.float32)).shape
        (4, 3, 3)
    """

    _fixed_ndim = 1


class Convolution3D(_FixedNdimConvolution):
    """Three-dimensional convolution layer: :class:`ConvolutionND` with ``ndim=3``.

    ``Convolution3D(in_channels, out_channels, ksize, stride=1, pad=0, nobias=False,
    initialW=None, initial_bias=None, cover_all=False, dilate=1, groups=1)``

    Example:
        >>> L.Convolution3D(1, 2, 2)(np.zeros((1, 1, 3, 3, 3), np.float32)).shape
        (1, 2, 2, 2, 2)
    """

    _fixed_ndim = 3


__all__ = ["Convolution1D", "Convolution3D", "ConvolutionND"]
