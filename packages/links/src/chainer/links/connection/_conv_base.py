"""What the convolution-like links share: argument normalisation, the kernel ``W`` and
optional bias ``b``, the lazy creation of the kernel from the first input's channels, and
``printable_specs``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import chainer
from chainer.links import _checks


class KernelLinkBase(chainer.Link):
    """A link holding a kernel ``W`` over ``ndim`` spatial axes and an optional bias ``b``.

    ``W`` (and ``b`` where its size depends on the input) is created from the number of
    input channels: at construction, or with ``in_channels=None`` at the first forward
    pass. Subclasses give the name used in error messages (``_where``), the number of
    spatial axes (``_ndim``, a class or instance attribute), the shapes
    (:meth:`_param_shapes`) and the names :attr:`printable_specs` lists (``_specs``).
    """

    _where: str
    _ndim: int
    _specs: tuple[str, ...] = ()
    # The memory layout of W when the link is created under
    # ``chainer.using_config('compute_mode', 'cudnn_fast')`` (Convolution2D's: channel-last).
    _cudnn_fast_W_layout: str | None = None

    def _setup_kernel(
        self,
        in_channels: Any,
        ksize: Any,
        stride: Any,
        pad: Any,
        nobias: bool,
        initialW: Any,
        initial_bias: Any,
        bias_size: int | None,
    ) -> int | None:
        """Normalise the common arguments and create the parameters; ``bias_size`` is the
        bias length if it does not depend on the input channels. Returns the checked
        ``in_channels``; the caller sets its own attributes and then calls
        :meth:`_initialize_params` with it unless it is ``None``."""
        where, ndim = self._where, self._ndim
        in_channels = _checks.positive_int(in_channels, "in_channels", where, allow_none=True)
        self.ksize = _checks.int_tuple(ksize, ndim, "ksize", where, 1)
        # printed as given, as Chainer 7.8.1 prints it (ksize=3 rather than (3, 3))
        self._ksize_given = tuple(ksize) if isinstance(ksize, list) else ksize
        self.stride = _checks.int_tuple(stride, ndim, "stride", where, 1)
        self.pad = _checks.int_tuple(pad, ndim, "pad", where, 0)
        W_init = _checks.initializer(initialW, "initialW", where)
        layout = self._cudnn_fast_W_layout if chainer.config.compute_mode == "cudnn_fast" else None
        with self.init_scope():
            self.W = chainer.Parameter(W_init, layout=layout)
            if nobias:
                self.b = None
            else:
                self.b = chainer.Parameter(_checks.bias_initializer(initial_bias, "initial_bias", where))
                if bias_size is not None:
                    _checks.initialize(self.b, (bias_size,), where)
        return in_channels

    def _param_shapes(self, in_channels: int) -> tuple[tuple[int, ...], int]:
        """The shape of ``W`` and the length of ``b`` for ``in_channels`` input channels."""
        raise NotImplementedError

    def _initialize_params(self, in_channels: int) -> None:
        w_shape, bias_size = self._param_shapes(in_channels)
        _checks.initialize(self.W, w_shape, self._where)
        if self.b is not None and self.b.array is None:
            _checks.initialize(self.b, (bias_size,), self._where)

    def _ensure_initialized(self, x: Any) -> None:
        """Check the input's number of axes (the functions would infer another number of
        spatial axes from it) and create ``W`` if it is still lazy."""
        shape = getattr(x, "shape", None)
        if shape is None or len(shape) != self._ndim + 2:
            raise ValueError(
                f"{self._where}: the input must have {self._ndim + 2} dimensions (batch, channel and "
                f"{self._ndim} spatial axes), got shape {shape}"
            )
        if self.W.raw_array is None:
            self._initialize_params(shape[1])

    @property
    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        for name in self._specs:
            if name == "nobias":
                yield name, self.b is None
            elif name == "ndim":
                yield name, self._ndim
            elif name == "ksize":
                yield name, getattr(self, "_ksize_given", self.ksize)
            else:
                yield name, getattr(self, name)


class ConvolutionLinkBase(KernelLinkBase):
    """A link holding a kernel ``W`` and an optional bias ``b`` of an N-d (de)convolution.

    The kernel has shape ``(out_channels, in_channels / groups, *ksize)`` for a convolution
    and ``(in_channels, out_channels / groups, *ksize)`` for a deconvolution (the layout of
    the corresponding functions). With ``in_channels=None`` it is created at the first
    forward pass from the channel axis of the input.
    """

    _transposed = False
    _specs = ("in_channels", "out_channels", "ksize", "stride", "pad", "nobias", "dilate", "groups")

    def _setup(
        self,
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
        """Set the layer up from the constructor's arguments. Without ``ksize`` the
        positional arguments shift (``Link(out_channels, ksize)``: ``in_channels`` is
        taken from the first input)."""
        where, ndim = self._where, self._ndim
        if ksize is None:
            out_channels, ksize, in_channels = in_channels, out_channels, None
        if ksize is None:
            raise ValueError(f"{where}: ksize is required (got out_channels={out_channels!r} and no ksize)")
        self.out_channels = _checks.positive_int(out_channels, "out_channels", where)
        self.dilate = _checks.int_tuple(dilate, ndim, "dilate", where, 1)
        self.groups = _checks.positive_int(groups, "groups", where)
        if self.out_channels % self.groups:
            raise ValueError(
                f"{where}: out_channels ({self.out_channels}) must be a multiple of groups ({self.groups})"
            )
        in_channels = self._setup_kernel(
            in_channels, ksize, stride, pad, nobias, initialW, initial_bias, self.out_channels
        )
        if in_channels is not None:
            self._initialize_params(in_channels)

    @classmethod
    def _kernel_from_params(
        cls, W: Any, b: Any, nobias: bool, groups: Any, ndim: int | None
    ) -> tuple[Any, Any, int, int, tuple[int, ...]]:
        """Check ``from_params``' arrays: ``(W, b, in_channels, out_channels, ksize)`` of a
        convolution kernel ``(out_channels, in_channels / groups, *ksize)``."""
        where = cls.__name__
        w = _checks.param_array(W, "W", where)
        if w.ndim < 3 or (ndim is not None and w.ndim != ndim + 2):
            expected = "at least 3" if ndim is None else str(ndim + 2)
            raise ValueError(f"{where}.from_params: W must have {expected} dimensions, got shape {w.shape}")
        groups = _checks.positive_int(groups, "groups", where)
        out_channels, in_channels = w.shape[0], w.shape[1] * groups
        bias = None if b is None or nobias else _checks.param_array(b, "b", where)
        if bias is not None and bias.size != out_channels:
            raise ValueError(f"{where}.from_params: b has {bias.size} elements, W has {out_channels} output channels")
        return w, bias, in_channels, out_channels, tuple(w.shape[2:])

    def _set_outsize(self, outsize: Any) -> None:
        """The ``outsize`` argument of the deconvolutions."""
        self.outsize = None if outsize is None else _checks.int_tuple(outsize, self._ndim, "outsize", self._where, 1)

    @property
    def in_channels(self) -> int | None:
        """Number of input channels (``None`` until the first input fixes it)."""
        W = self.W
        if W.array is None:
            return None
        return W.shape[0] if self._transposed else W.shape[1] * self.groups

    def _param_shapes(self, in_channels: int) -> tuple[tuple[int, ...], int]:
        if in_channels % self.groups:
            raise ValueError(f"{self._where}: in_channels ({in_channels}) must be a multiple of groups ({self.groups})")
        if self._transposed:
            shape = (in_channels, self.out_channels // self.groups, *self.ksize)
        else:
            shape = (self.out_channels, in_channels // self.groups, *self.ksize)
        return shape, self.out_channels
