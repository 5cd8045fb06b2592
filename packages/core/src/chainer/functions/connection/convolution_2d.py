"""Two-dimensional convolution."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer import variable
from chainer.functions.connection import convolution_nd
from chainer.utils import argument


class Convolution2DFunction(convolution_nd.ConvolutionND):
    """:class:`~chainer.functions.connection.convolution_nd.ConvolutionND` on two spatial axes."""

    def __init__(
        self,
        stride: int | Sequence[int] = 1,
        pad: int | Sequence[int] = 0,
        cover_all: bool = False,
        dilate: int | Sequence[int] = 1,
        groups: int = 1,
        outsize: Sequence[int] | None = None,
    ) -> None:
        super().__init__(2, stride, pad, cover_all, dilate, groups, outsize)

    # Per-axis names of the geometry, as Chainer's 2-D function exposes them (exporters
    # and hooks read these).
    sy = property(lambda self: self.stride[0])
    sx = property(lambda self: self.stride[1])
    ph = property(lambda self: self.pad[0])
    pw = property(lambda self: self.pad[1])
    dy = property(lambda self: self.dilate[0])
    dx = property(lambda self: self.dilate[1])

    @property
    def _grad_w_class(self) -> type[convolution_nd.ConvolutionNDGradW]:
        return Convolution2DGradW


class Convolution2DGradW(convolution_nd.ConvolutionNDGradW):
    """:class:`~chainer.functions.connection.convolution_nd.ConvolutionNDGradW` of a
    :class:`Convolution2DFunction`: the kernel gradient from ``(x, gy)``."""


def _make_2d(
    ndim: int,
    stride: Sequence[int],
    pad: Sequence[int],
    cover_all: bool,
    dilate: Sequence[int],
    groups: int,
) -> Convolution2DFunction:
    return Convolution2DFunction(stride, pad, cover_all, dilate, groups)


def convolution_2d(
    x: Any,
    W: Any,
    b: Any = None,
    stride: int | Sequence[int] = 1,
    pad: int | Sequence[int] = 0,
    cover_all: bool = False,
    **kwargs: Any,
) -> variable.Variable:
    """Two-dimensional convolution: ``convolution_2d(x, W, b=None, stride=1, pad=0,
    cover_all=False, *, dilate=1, groups=1)``.

    Computes :math:`y_{n,o,i,j} = b_o + \\sum_{c,p,q} W_{o,c,p,q}\\,
    x_{n,c',\\,i s_y + p d_y - p_h,\\,j s_x + q d_x - p_w}` with zero padding, where ``c'``
    runs over the input channels of ``o``'s group (see :func:`convolution_nd`).

    Args:
        x: Input of shape ``(N, C, H, W)``.
        W: Kernel of shape ``(O, C / groups, kh, kw)``.
        b: Optional bias of shape ``(O,)`` with ``x``'s dtype.
        stride: ``s`` or ``(sy, sx)``.
        pad: ``p`` or ``(ph, pw)``: zeros added on both sides.
        cover_all: Add output windows so that every input pixel is covered (useful
            with strides that do not divide the input).
        dilate: ``d`` or ``(dy, dx)``: spacing between kernel taps (keyword only).
        groups: Number of channel groups (keyword only); ``C`` and ``O`` must be
            multiples of it.

    Returns:
        Output of shape ``(N, O, out_h, out_w)`` where ``out_h = (H + 2 ph - (kh - 1) dy
        - 1) // sy + 1`` (and likewise ``out_w``), one more if ``cover_all`` needs it.

    Example:
        >>> x = np.arange(16, dtype='f').reshape(1, 1, 4, 4)
        >>> F.convolution_2d(x, np.ones((1, 1, 3, 3), 'f')).array
        array([[[[45., 54.],
                 [81., 90.]]]], dtype=float32)
    """
    dilate, groups = argument.parse_kwargs(
        kwargs,
        ("dilate", 1),
        ("groups", 1),
        deterministic="deterministic argument is not supported anymore. "
        "Use chainer.using_config('cudnn_deterministic', value) context where value is either `True` or `False`.",
    )
    return convolution_nd._convolution(
        x, W, b, stride, pad, cover_all, dilate, groups, 2, "chainer.functions.convolution_2d", _make_2d
    )


__all__ = ["convolution_2d"]
