"""Inception module with batch normalization (Inception v2)."""

from __future__ import annotations

from typing import Any

import chainer
from chainer import functions, variable
from chainer.links import _checks
from chainer.links.connection import convolution_2d
from chainer.links.normalization import batch_normalization

_WHERE = "InceptionBN"


class InceptionBN(chainer.Chain):
    """Inception module of the batch-normalized GoogLeNet (Ioffe and Szegedy, 2015).

    Branches over the same input, concatenated along the channels; every convolution
    (none of them has a bias) is followed by batch normalization and ReLU:

    1. if ``out1 > 0``: ``conv1`` (1x1 to ``out1``);
    2. ``proj3`` (1x1 to ``proj3``) → ``conv3`` (3x3, pad 1, ``stride``, to ``out3``);
    3. ``proj33`` (1x1 to ``proj33``) → ``conv33a`` (3x3 to ``out33``) → ``conv33b``
       (3x3, ``stride``, to ``out33``);
    4. 3x3 ``pooltype`` pooling (pad 1, ``stride``), then, if ``proj_pool`` is given,
       ``poolp`` (1x1 to ``proj_pool``).

    The output has ``out1 + out3 + out33 + (proj_pool or in_channels)`` channels. A block
    with ``out1 > 0`` needs ``proj_pool`` and ``stride=1``; a reduction block (``stride >
    1``) has ``out1=0``.

    Args:
        in_channels: Number of input channels.
        out1, proj3, out3, proj33, out33: Channel counts as above (``out1`` may be 0).
        pooltype: ``'max'`` or ``'avg'``.
        proj_pool: Channels of the projection after pooling, or ``None`` for none.
        stride: Stride of the last convolution of each branch and of the pooling.
        conv_init: Initializer of every kernel; ``None`` means LeCunNormal.
        dtype: dtype of the batch normalization parameters and statistics.

    Example:
        >>> block = L.InceptionBN(3, 2, 2, 4, 2, 3, 'avg', proj_pool=1)
        >>> block(np.zeros((2, 3, 5, 5), np.float32)).shape
        (2, 10, 5, 5)
    """

    def __init__(
        self,
        in_channels: int,
        out1: int,
        proj3: int,
        out3: int,
        proj33: int,
        out33: int,
        pooltype: str,
        proj_pool: int | None = None,
        stride: int = 1,
        conv_init: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        if not _checks.is_int(out1) or out1 < 0:
            raise ValueError(f"{_WHERE}: out1 must be a non-negative int, got {out1!r}")
        for name, value in (("proj3", proj3), ("out3", out3), ("proj33", proj33), ("out33", out33)):
            _checks.positive_int(value, name, _WHERE)
        _checks.positive_int(proj_pool, "proj_pool", _WHERE, allow_none=True)
        _checks.positive_int(stride, "stride", _WHERE)
        if pooltype not in ("max", "avg"):
            raise _checks.UnsupportedValueError(f"{_WHERE}: pooltype must be 'max' or 'avg', got {pooltype!r}")
        if out1 > 0 and stride != 1:
            raise _checks.AssertedValueError(
                f"{_WHERE}: out1 must be 0 when stride is not 1 (got out1={out1}, stride={stride})"
            )
        if out1 > 0 and proj_pool is None:
            raise _checks.AssertedValueError(f"{_WHERE}: proj_pool is required when out1 > 0 (got out1={out1})")
        self.out1 = out1
        self.proj_pool = proj_pool
        self.stride = stride
        self.pooltype = pooltype

        def conv(n_in: Any, n_out: int, ksize: int, stride: int = 1, pad: int = 0) -> convolution_2d.Convolution2D:
            return convolution_2d.Convolution2D(n_in, n_out, ksize, stride, pad, nobias=True, initialW=conv_init)

        def bn(size: int) -> batch_normalization.BatchNormalization:
            return batch_normalization.BatchNormalization(size, dtype=dtype)

        with self.init_scope():
            self.proj3 = conv(in_channels, proj3, 1)
            self.conv3 = conv(proj3, out3, 3, stride, 1)
            self.proj33 = conv(in_channels, proj33, 1)
            self.conv33a = conv(proj33, out33, 3, 1, 1)
            self.conv33b = conv(out33, out33, 3, stride, 1)
            self.proj3n = bn(proj3)
            self.conv3n = bn(out3)
            self.proj33n = bn(proj33)
            self.conv33an = bn(out33)
            self.conv33bn = bn(out33)
            if out1 > 0:
                self.conv1 = conv(in_channels, out1, 1)
                self.conv1n = bn(out1)
            if proj_pool is not None:
                self.poolp = conv(in_channels, proj_pool, 1)
                self.poolpn = bn(proj_pool)

    def forward(self, x: Any) -> variable.Variable:
        """Apply the module to ``x`` of shape ``(N, C, H, W)``."""
        relu = functions.relu
        outs = []
        if self.out1 > 0:
            outs.append(relu(self.conv1n(self.conv1(x))))
        h3 = relu(self.proj3n(self.proj3(x)))
        outs.append(relu(self.conv3n(self.conv3(h3))))
        h33 = relu(self.proj33n(self.proj33(x)))
        h33 = relu(self.conv33an(self.conv33a(h33)))
        outs.append(relu(self.conv33bn(self.conv33b(h33))))
        if self.pooltype == "max":
            pool = functions.max_pooling_2d(x, 3, stride=self.stride, pad=1, cover_all=False)
        else:
            pool = functions.average_pooling_2d(x, 3, stride=self.stride, pad=1)
        if self.proj_pool is not None:
            pool = relu(self.poolpn(self.poolp(pool)))
        outs.append(pool)
        return functions.concat(outs, axis=1)


__all__ = ["InceptionBN"]
