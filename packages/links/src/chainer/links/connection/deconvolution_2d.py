"""Two-dimensional deconvolution (transposed convolution) layer."""

from __future__ import annotations

from typing import Any

from chainer import functions, variable
from chainer.links.connection import _conv_base
from chainer.utils import argument


class Deconvolution2D(_conv_base.ConvolutionLinkBase):
    """Two-dimensional deconvolution (transposed convolution) layer: holds the kernel and
    bias of :func:`~chainer.functions.deconvolution_2d`.

    ``Deconvolution2D(in_channels, out_channels, ksize=None, stride=1, pad=0, nobias=False,
    outsize=None, initialW=None, initial_bias=None, *, dilate=1, groups=1)``

    With ``ksize`` omitted the arguments shift: ``Deconvolution2D(out_channels, ksize)``
    takes the input channels from the first input, as does ``in_channels=None``.

    Args:
        in_channels: Number of input channels, or ``None`` to infer it lazily.
        out_channels: Number of output channels.
        ksize: Kernel size: ``k`` or ``(kh, kw)``.
        stride: ``s`` or ``(sy, sx)``.
        pad: ``p`` or ``(ph, pw)``: rows/columns cropped from both sides of the output.
        nobias: If ``True``, no bias is used (``b`` is ``None``).
        outsize: ``(out_h, out_w)`` to pick among the output sizes a stride allows;
            ``None`` gives the smallest one.
        initialW: Initializer of ``W`` of shape ``(in_channels, out_channels / groups, kh,
            kw)``; ``None`` means :class:`~chainer.initializers.LeCunNormal`.
        initial_bias: Initializer of ``b`` of shape ``(out_channels,)``; ``None`` means 0.
        dilate: ``d`` or ``(dy, dx)`` (keyword only).
        groups: Number of channel groups (keyword only).

    Attributes:
        W (~chainer.Parameter): Kernel.
        b (~chainer.Parameter): Bias, or ``None``.

    Example:
        >>> deconv = L.Deconvolution2D(4, 2, ksize=2, stride=2)
        >>> deconv(np.zeros((1, 4, 3, 3), np.float32)).shape
        (1, 2, 6, 6)
    """

    _where = "Deconvolution2D"
    _ndim = 2
    _transposed = True
    _specs = (*_conv_base.ConvolutionLinkBase._specs, "outsize")

    def __init__(
        self,
        in_channels: int | None,
        out_channels: int,
        ksize: Any = None,
        stride: Any = 1,
        pad: Any = 0,
        nobias: bool = False,
        outsize: Any = None,
        initialW: Any = None,
        initial_bias: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__()
        dilate, groups = argument.parse_kwargs(
            kwargs,
            ("dilate", 1),
            ("groups", 1),
            deterministic="deterministic argument is not supported anymore. "
            "Use chainer.using_config('cudnn_deterministic', value) context where value is either `True` or `False`.",
        )
        self._set_outsize(outsize)
        self._setup(in_channels, out_channels, ksize, stride, pad, nobias, initialW, initial_bias, dilate, groups)

    def forward(self, x: Any) -> variable.Variable:
        """Apply the transposed convolution to ``x`` of shape ``(N, C, H, W)``."""
        self._ensure_initialized(x)
        return functions.deconvolution_2d(
            x, self.W, self.b, self.stride, self.pad, self.outsize, dilate=self.dilate, groups=self.groups
        )


__all__ = ["Deconvolution2D"]
