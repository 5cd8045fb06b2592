"""Two-dimensional transposed convolution ("deconvolution")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer import variable
from chainer.functions.connection import deconvolution_nd
from chainer.utils import argument


class Deconvolution2DFunction(deconvolution_nd.DeconvolutionND):
    """:class:`~chainer.functions.connection.deconvolution_nd.DeconvolutionND` on two spatial axes."""

    def __init__(
        self,
        stride: int | Sequence[int] = 1,
        pad: int | Sequence[int] = 0,
        outsize: Sequence[int] | None = None,
        dilate: int | Sequence[int] = 1,
        groups: int = 1,
    ) -> None:
        super().__init__(2, stride, pad, outsize, dilate, groups)

    # Per-axis names of the geometry, as Chainer's 2-D function exposes them.
    sy = property(lambda self: self.stride[0])
    sx = property(lambda self: self.stride[1])
    ph = property(lambda self: self.pad[0])
    pw = property(lambda self: self.pad[1])
    dy = property(lambda self: self.dilate[0])
    dx = property(lambda self: self.dilate[1])
    outh = property(lambda self: None if self.outsize is None else self.outsize[0])
    outw = property(lambda self: None if self.outsize is None else self.outsize[1])


def _make_2d(
    ndim: int,
    stride: Sequence[int],
    pad: Sequence[int],
    outsize: Sequence[int] | None,
    dilate: Sequence[int],
    groups: int,
) -> Deconvolution2DFunction:
    return Deconvolution2DFunction(stride, pad, outsize, dilate, groups)


def deconvolution_2d(
    x: Any,
    W: Any,
    b: Any = None,
    stride: int | Sequence[int] = 1,
    pad: int | Sequence[int] = 0,
    outsize: Sequence[int] | None = None,
    **kwargs: Any,
) -> variable.Variable:
    """Two-dimensional transposed convolution: ``deconvolution_2d(x, W, b=None, stride=1,
    pad=0, outsize=None, *, dilate=1, groups=1)``.

    The gradient of :func:`convolution_2d` with respect to its input: each input pixel
    adds ``x[n, c, i, j] * W[c, o, :, :]`` onto the output at ``(i sy - ph, j sx - pw)``.

    Args:
        x: Input of shape ``(N, C_in, H, W)``.
        W: Kernel of shape ``(C_in, C_out / groups, kh, kw)``.
        b: Optional bias of shape ``(C_out,)`` with ``x``'s dtype.
        stride: ``s`` or ``(sy, sx)``.
        pad: ``p`` or ``(ph, pw)``: rows/columns cropped from both sides.
        outsize: ``(out_h, out_w)``. By default ``out_h = sy (H - 1) + (kh - 1) dy + 1 -
            2 ph``; sizes up to ``sy - 1`` larger are accepted (the convolution of such an
            output with ``cover_all=True`` has the input's size).
        dilate: ``d`` or ``(dy, dx)`` (keyword only).
        groups: Number of channel groups (keyword only); ``C_in`` must be a multiple of it.

    Returns:
        Output of shape ``(N, C_out, out_h, out_w)``.

    Example:
        >>> x = np.ones((1, 1, 2, 2), 'f')
        >>> F.deconvolution_2d(x, np.ones((1, 1, 2, 2), 'f'), stride=2).shape
        (1, 1, 4, 4)
    """
    dilate, groups = argument.parse_kwargs(
        kwargs,
        ("dilate", 1),
        ("groups", 1),
        deterministic="deterministic argument is not supported anymore. "
        "Use chainer.using_config('cudnn_deterministic', value) context where value is either `True` or `False`.",
    )
    return deconvolution_nd._deconvolution(
        x, W, b, stride, pad, outsize, dilate, groups, 2, "chainer.functions.deconvolution_2d", _make_2d
    )


__all__ = ["deconvolution_2d"]
