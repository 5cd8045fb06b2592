"""Inception module of GoogLeNet."""

from __future__ import annotations

from typing import Any

import chainer
from chainer import functions, variable
from chainer.links import _checks
from chainer.links.connection import convolution_2d


class Inception(chainer.Chain):
    """Inception module of GoogLeNet (Szegedy et al., 2015).

    Four branches over the same input, concatenated along the channels and passed
    through ReLU:

    1. ``conv1``: 1x1 convolution to ``out1`` channels;
    2. ``proj3`` (1x1 to ``proj3``) → ReLU → ``conv3`` (3x3, pad 1, to ``out3``);
    3. ``proj5`` (1x1 to ``proj5``) → ReLU → ``conv5`` (5x5, pad 2, to ``out5``);
    4. 3x3 max pooling (stride 1, pad 1) → ``projp`` (1x1 to ``proj_pool``).

    The output has ``out1 + out3 + out5 + proj_pool`` channels and the input's spatial size.

    Args:
        in_channels: Number of input channels, or ``None`` to infer it lazily.
        out1, proj3, out3, proj5, out5, proj_pool: Channel counts as above.
        conv_init: Initializer of every kernel; ``None`` means LeCunNormal.
        bias_init: Initializer of every bias; ``None`` means 0.

    Example:
        >>> block = L.Inception(3, 2, 2, 4, 2, 3, 1)
        >>> block(np.zeros((1, 3, 5, 5), np.float32)).shape
        (1, 10, 5, 5)
    """

    def __init__(
        self,
        in_channels: int | None,
        out1: int,
        proj3: int,
        out3: int,
        proj5: int,
        out5: int,
        proj_pool: int,
        conv_init: Any = None,
        bias_init: Any = None,
    ) -> None:
        super().__init__()
        for name, value in (
            ("out1", out1),
            ("proj3", proj3),
            ("out3", out3),
            ("proj5", proj5),
            ("out5", out5),
            ("proj_pool", proj_pool),
        ):
            _checks.positive_int(value, name, "Inception")

        def conv(n_in: Any, n_out: int, ksize: int, pad: int = 0) -> convolution_2d.Convolution2D:
            return convolution_2d.Convolution2D(n_in, n_out, ksize, pad=pad, initialW=conv_init, initial_bias=bias_init)

        with self.init_scope():
            self.conv1 = conv(in_channels, out1, 1)
            self.proj3 = conv(in_channels, proj3, 1)
            self.conv3 = conv(proj3, out3, 3, 1)
            self.proj5 = conv(in_channels, proj5, 1)
            self.conv5 = conv(proj5, out5, 5, 2)
            self.projp = conv(in_channels, proj_pool, 1)

    def forward(self, x: Any) -> variable.Variable:
        """Apply the module to ``x`` of shape ``(N, C, H, W)``."""
        relu = functions.relu
        out1 = self.conv1(x)
        out3 = self.conv3(relu(self.proj3(x)))
        out5 = self.conv5(relu(self.proj5(x)))
        pool = self.projp(functions.max_pooling_2d(x, 3, stride=1, pad=1))
        return relu(functions.concat((out1, out3, out5, pool), axis=1))


__all__ = ["Inception"]
