"""Two-dimensional convolution layer."""

from __future__ import annotations

from typing import Any

from chainer import functions, memory_layouts, variable
from chainer.links import _checks
from chainer.links.connection import _conv_base
from chainer.utils import argument


class Convolution2D(_conv_base.ConvolutionLinkBase):
    """Two-dimensional convolution layer: holds the kernel and bias of
    :func:`~chainer.functions.convolution_2d`.

    ``Convolution2D(in_channels, out_channels, ksize=None, stride=1, pad=0, nobias=False,
    initialW=None, initial_bias=None, *, dilate=1, groups=1)``

    With ``ksize`` omitted the arguments shift: ``Convolution2D(out_channels, ksize)``
    creates a layer whose input channels are taken from the first input, as does
    ``in_channels=None``.

    Args:
        in_channels: Number of input channels, or ``None`` to infer it lazily.
        out_channels: Number of output channels.
        ksize: Kernel size: ``k`` or ``(kh, kw)``.
        stride: ``s`` or ``(sy, sx)``.
        pad: ``p`` or ``(ph, pw)``: zeros added on both sides of each spatial axis.
        nobias: If ``True``, no bias is used (``b`` is ``None``).
        initialW: Initializer of ``W`` of shape ``(out_channels, in_channels / groups, kh,
            kw)``: an initializer, a scalar, an array, or ``None`` for
            :class:`~chainer.initializers.LeCunNormal`.
        initial_bias: Initializer of ``b`` of shape ``(out_channels,)``; ``None`` means 0.
        dilate: ``d`` or ``(dy, dx)``: spacing between kernel taps (keyword only).
        groups: Number of channel groups (keyword only); ``in_channels`` and
            ``out_channels`` must be multiples of it.
        cudnn_fast: Accepted for compatibility (keyword only); it selected a cuDNN memory
            layout and changes nothing here.

    Created under ``chainer.using_config('compute_mode', 'cudnn_fast')``, the kernel ``W``
    is stored channel-last (:data:`chainer.memory_layouts.CUDNN_CHANNEL_LAST_W`), as
    Chainer 7 did for cuDNN. The convolution of this distribution works in the standard
    layout only (cuDNN's channel-last convolution is not part of it), so such a layer, or
    an input stored channel-last, makes :meth:`forward` raise ``RuntimeError``, as
    Chainer 7 did without cuDNN; ``W.as_layout(None)`` gives the kernel in the standard
    layout.

    Attributes:
        W (~chainer.Parameter): Kernel.
        b (~chainer.Parameter): Bias, or ``None``.

    Example:
        >>> conv = L.Convolution2D(3, 8, ksize=3, pad=1)
        >>> conv(np.zeros((2, 3, 5, 5), np.float32)).shape
        (2, 8, 5, 5)
        >>> L.Convolution2D(8, 3)(np.zeros((1, 4, 5, 5), np.float32)).shape  # lazy in_channels
        (1, 8, 3, 3)
    """

    _where = "Convolution2D"
    _ndim = 2
    _cudnn_fast_W_layout = memory_layouts.CUDNN_CHANNEL_LAST_W

    def __init__(
        self,
        in_channels: int | None,
        out_channels: int,
        ksize: Any = None,
        stride: Any = 1,
        pad: Any = 0,
        nobias: bool = False,
        initialW: Any = None,
        initial_bias: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__()
        dilate, groups, cudnn_fast = argument.parse_kwargs(
            kwargs,
            ("dilate", 1),
            ("groups", 1),
            ("cudnn_fast", False),
            deterministic="deterministic argument is not supported anymore. "
            "Use chainer.using_config('cudnn_deterministic', value) context where value is either `True` or `False`.",
        )
        self.cudnn_fast = bool(cudnn_fast)
        self._setup(in_channels, out_channels, ksize, stride, pad, nobias, initialW, initial_bias, dilate, groups)

    @classmethod
    def from_params(
        cls, W: Any, b: Any = None, stride: Any = 1, pad: Any = 0, nobias: bool = False, **kwargs: Any
    ) -> Convolution2D:
        """A layer whose kernel and bias start as copies of ``W`` (``(out_channels,
        in_channels / groups, kh, kw)``) and ``b``, on the device of ``W``.

        Args:
            W: The kernel: a parameter, a variable or an array.
            b: The bias, or ``None`` (a zero bias unless ``nobias``).
            stride: Stride.
            pad: Padding.
            nobias: Create no bias.
            kwargs: ``dilate`` and ``groups``, as for the constructor.
        """
        groups = kwargs.get("groups", 1)
        w, bias, in_channels, out_channels, ksize = cls._kernel_from_params(W, b, nobias, groups, 2)
        link = cls(in_channels, out_channels, ksize, stride, pad, nobias, initialW=w, initial_bias=bias, **kwargs)
        return _checks.from_params_link(link, W)

    def forward(self, x: Any) -> variable.Variable:
        """Apply the convolution to ``x`` of shape ``(N, C, H, W)``."""
        if self.W._layout is not None or getattr(x, "_layout", None) is not None:
            raise RuntimeError(
                f"Convolution2D: the kernel is stored in memory layout {self.W._layout} and the input in "
                f"{getattr(x, '_layout', None)}; the convolution runs in the standard layout only here (Chainer "
                "7 needed cuDNN for channel-last ones, as made under compute_mode 'cudnn_fast'): create the "
                "layer outside that mode, or convert with as_layout(None)"
            )
        self._ensure_initialized(x)
        return functions.convolution_2d(
            x, self.W, self.b, self.stride, self.pad, dilate=self.dilate, groups=self.groups
        )


__all__ = ["Convolution2D"]
