"""What the convolution and deconvolution links share: argument normalisation, the weight
and bias parameters, and the lazy creation of the weight from the first input's channels."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import chainer
from chainer.links import _checks


class ConvolutionLinkBase(chainer.Link):
    """A link holding a kernel ``W`` and an optional bias ``b`` of an N-d (de)convolution.

    The kernel has shape ``(out_channels, in_channels / groups, *ksize)`` for a convolution
    and ``(in_channels, out_channels / groups, *ksize)`` for a deconvolution (the layout of
    the corresponding functions). With ``in_channels=None`` it is created at the first
    forward pass from the channel axis of the input.
    """

    _transposed = False

    def _setup(
        self,
        where: str,
        ndim: int,
        in_channels: Any,
        out_channels: Any,
        ksize: Any,
        stride: Any,
        pad: Any,
        nobias: bool,
        initialW: Any,
        initial_bias: Any,
        dilate: Any,
        groups: Any,
    ) -> None:
        self._where = where
        self._ndim = ndim
        if ksize is None:
            raise ValueError(f"{where}: ksize is required (got out_channels={out_channels!r} and no ksize)")
        self.out_channels = _checks.positive_int(out_channels, "out_channels", where)
        in_channels = _checks.positive_int(in_channels, "in_channels", where, allow_none=True)
        self.ksize = _checks.int_tuple(ksize, ndim, "ksize", where, 1)
        self.stride = _checks.int_tuple(stride, ndim, "stride", where, 1)
        self.pad = _checks.int_tuple(pad, ndim, "pad", where, 0)
        self.dilate = _checks.int_tuple(dilate, ndim, "dilate", where, 1)
        self.groups = _checks.positive_int(groups, "groups", where)
        if self.out_channels % self.groups:
            raise ValueError(
                f"{where}: out_channels ({self.out_channels}) must be a multiple of groups ({self.groups})"
            )
        W_init = _checks.initializer(initialW, "initialW", where)
        with self.init_scope():
            self.W = chainer.Parameter(W_init)
            if nobias:
                self.b = None
            else:
                self.b = chainer.Parameter(_checks.bias_initializer(initial_bias, "initial_bias", where))
                _checks.initialize(self.b, (self.out_channels,), where)
        if in_channels is not None:
            self._initialize_params(in_channels)

    @property
    def in_channels(self) -> int | None:
        """Number of input channels (``None`` until the first input fixes it)."""
        W = self.W
        if W.array is None:
            return None
        return W.shape[0] if self._transposed else W.shape[1] * self.groups

    def _initialize_params(self, in_channels: int) -> None:
        if in_channels % self.groups:
            raise ValueError(f"{self._where}: in_channels ({in_channels}) must be a multiple of groups ({self.groups})")
        if self._transposed:
            shape = (in_channels, self.out_channels // self.groups, *self.ksize)
        else:
            shape = (self.out_channels, in_channels // self.groups, *self.ksize)
        _checks.initialize(self.W, shape, self._where)

    def _ensure_initialized(self, x: Any) -> None:
        """Check the input's number of axes (the functions would infer another number of
        spatial axes from it) and create ``W`` if it is still lazy."""
        shape = getattr(x, "shape", None)
        if shape is None or len(shape) != self._ndim + 2:
            raise ValueError(
                f"{self._where}: the input must have {self._ndim + 2} dimensions (batch, channel and "
                f"{self._ndim} spatial axes), got shape {shape}"
            )
        if self.W.array is None:
            self._initialize_params(shape[1])

    @property
    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        yield "in_channels", self.in_channels
        yield "out_channels", self.out_channels
        yield "ksize", self.ksize
        yield "stride", self.stride
        yield "pad", self.pad
        yield "nobias", self.b is None
        yield "dilate", self.dilate
        yield "groups", self.groups
