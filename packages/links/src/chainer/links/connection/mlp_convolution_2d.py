"""Two-dimensional MLP convolution layer (network in network)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import chainer
from chainer import functions, variable
from chainer.links import _checks
from chainer.links.connection import convolution_2d
from chainer.utils import argument

_WSCALE_MESSAGE = (
    "wscale is not supported anymore. Use conv_init and bias_init argument to change the scale of initial parameters."
)


class MLPConvolution2D(chainer.ChainList):
    """Two-dimensional MLP convolution layer of Network in Network (Lin et al., 2014).

    A convolution with ``ksize`` followed by 1x1 convolutions — a small perceptron shared
    over all positions — with ``activation`` between them (not after the last one).

    ``MLPConvolution2D(in_channels, out_channels, ksize=None, stride=1, pad=0,
    activation=relu, *, conv_init=None, bias_init=None)``

    With ``ksize`` omitted the arguments shift: ``MLPConvolution2D(out_channels, ksize)``
    takes the input channels from the first input, as does ``in_channels=None``.

    Args:
        in_channels: Number of input channels, or ``None`` to infer it lazily.
        out_channels: Sequence of the output channels of each convolution (at least one).
        ksize: Kernel size of the first convolution: ``k`` or ``(kh, kw)``.
        stride: Stride of the first convolution.
        pad: Padding of the first convolution.
        activation: Activation applied between the convolutions.
        conv_init: Initializer of the kernels (keyword only); ``None`` means LeCunNormal.
        bias_init: Initializer of the biases (keyword only); ``None`` means 0.

    Example:
        >>> mlpconv = L.MLPConvolution2D(3, (16, 8, 4), ksize=3)
        >>> [link.W.shape for link in mlpconv]
        [(16, 3, 3, 3), (8, 16, 1, 1), (4, 8, 1, 1)]
        >>> mlpconv(np.zeros((2, 3, 5, 5), np.float32)).shape
        (2, 4, 3, 3)
    """

    def __init__(
        self,
        in_channels: int | None,
        out_channels: Sequence[int],
        ksize: Any = None,
        stride: Any = 1,
        pad: Any = 0,
        activation: Callable[[Any], Any] = functions.relu,
        *args: Any,
        **kwargs: Any,
    ) -> None:
        if args:
            raise TypeError(_WSCALE_MESSAGE)
        conv_init, bias_init = argument.parse_kwargs(
            kwargs, ("conv_init", None), ("bias_init", None), wscale=_WSCALE_MESSAGE
        )
        if ksize is None:
            out_channels, ksize, in_channels = in_channels, out_channels, None  # type: ignore[assignment]
        if (
            not isinstance(out_channels, (tuple, list))
            or not out_channels
            or not all(_checks.is_int(c) and c > 0 for c in out_channels)
        ):
            raise ValueError(
                f"MLPConvolution2D: out_channels must be a non-empty sequence of positive ints, got {out_channels!r}"
            )
        if not callable(activation):
            raise TypeError(f"MLPConvolution2D: activation must be callable, got {type(activation).__name__}")
        convs = [
            convolution_2d.Convolution2D(
                in_channels, out_channels[0], ksize, stride, pad, initialW=conv_init, initial_bias=bias_init
            )
        ]
        for n_in, n_out in zip(out_channels, out_channels[1:]):
            convs.append(convolution_2d.Convolution2D(n_in, n_out, 1, initialW=conv_init, initial_bias=bias_init))
        super().__init__(*convs)
        self.activation = activation

    def forward(self, x: Any) -> variable.Variable:
        """Apply the convolutions to ``x`` of shape ``(N, C, H, W)``."""
        layers = list(self)
        for layer in layers[:-1]:
            x = self.activation(layer(x))
        return layers[-1](x)


__all__ = ["MLPConvolution2D"]
