"""Two-dimensional local convolution layer (a kernel per output position)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import chainer
from chainer import functions, variable
from chainer.links import _checks
from chainer.utils import argument

_WHERE = "LocalConvolution2D"


class LocalConvolution2D(chainer.Link):
    """Two-dimensional local convolution layer: holds the per-position kernels and biases
    of :func:`~chainer.functions.local_convolution_2d`.

    Like a convolution without padding, except that every output position ``(i, j)``
    has its own kernel and bias, so the parameter shapes depend on the input's spatial
    size.

    ``LocalConvolution2D(in_channels, out_channels, in_size=None, ksize=None, stride=1,
    nobias=False, initialW=None, initial_bias=None)``

    Args:
        in_channels: Number of input channels, or ``None`` to infer it from the first input.
        out_channels: Number of output channels.
        in_size: Spatial size of the input: ``s`` or ``(h, w)``, or ``None`` to infer it
            from the first input.
        ksize: Kernel size: ``k`` or ``(kh, kw)`` (required).
        stride: ``s`` or ``(sy, sx)``.
        nobias: If ``True``, no bias is used (``b`` is ``None``).
        initialW: Initializer of ``W`` of shape ``(out_channels, out_h, out_w,
            in_channels, kh, kw)`` with ``out_h = (h - kh) // sy + 1`` (likewise
            ``out_w``); ``None`` means :class:`~chainer.initializers.LeCunNormal`.
        initial_bias: Initializer of ``b`` of shape ``(out_channels, out_h, out_w)``;
            ``None`` means 0.

    Attributes:
        W (~chainer.Parameter): Kernels.
        b (~chainer.Parameter): Biases, or ``None``.

    Example:
        >>> conv = L.LocalConvolution2D(2, 3, in_size=4, ksize=3)
        >>> conv.W.shape
        (3, 2, 2, 2, 3, 3)
        >>> conv(np.zeros((5, 2, 4, 4), np.float32)).shape
        (5, 3, 2, 2)
    """

    def __init__(
        self,
        in_channels: int | None,
        out_channels: int,
        in_size: Any = None,
        ksize: Any = None,
        stride: Any = 1,
        nobias: bool = False,
        initialW: Any = None,
        initial_bias: Any = None,
        **kwargs: Any,
    ) -> None:
        super().__init__()
        argument.assert_kwargs_empty(kwargs)
        if ksize is None:
            raise ValueError(f"{_WHERE}: ksize is required")
        self.in_channels = _checks.positive_int(in_channels, "in_channels", _WHERE, allow_none=True)
        self.out_channels = _checks.positive_int(out_channels, "out_channels", _WHERE)
        self.in_size = None if in_size is None else _checks.int_tuple(in_size, 2, "in_size", _WHERE, 1)
        self.ksize = _checks.int_tuple(ksize, 2, "ksize", _WHERE, 1)
        self.stride = _checks.int_tuple(stride, 2, "stride", _WHERE, 1)
        with self.init_scope():
            self.W = chainer.Parameter(_checks.initializer(initialW, "initialW", _WHERE))
            if nobias:
                self.b = None
            else:
                self.b = chainer.Parameter(_checks.bias_initializer(initial_bias, "initial_bias", _WHERE))
        if self.in_channels is not None and self.in_size is not None:
            self._initialize_params(self.in_channels, self.in_size)

    def _initialize_params(self, in_channels: int, in_size: tuple[int, int]) -> None:
        out_size = tuple((s - k) // st + 1 for s, k, st in zip(in_size, self.ksize, self.stride))
        if min(out_size) < 1:
            raise ValueError(
                f"{_WHERE}: the kernel {self.ksize} does not fit in the input of spatial size {tuple(in_size)}"
            )
        _checks.initialize(self.W, (self.out_channels, *out_size, in_channels, *self.ksize), _WHERE)
        if self.b is not None:
            _checks.initialize(self.b, (self.out_channels, *out_size), _WHERE)
        self.in_channels = in_channels
        self.in_size = tuple(in_size)

    def forward(self, x: Any) -> variable.Variable:
        """Apply the local convolution to ``x`` of shape ``(N, C, H, W)``."""
        if self.W.array is None:
            shape = getattr(x, "shape", ())
            if len(shape) != 4:
                raise ValueError(f"{_WHERE}: the input must be 4-dimensional, got shape {shape}")
            for name, expected, actual in (
                ("in_channels", self.in_channels, shape[1]),
                ("in_size", self.in_size, tuple(shape[2:])),
            ):
                if expected is not None and expected != actual:
                    raise ValueError(f"{_WHERE}: the layer was built with {name}={expected}, the input has {actual}")
            self._initialize_params(shape[1], tuple(shape[2:]))
        return functions.local_convolution_2d(x, self.W, self.b, self.stride)

    @property
    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        yield "in_channels", self.in_channels
        yield "out_channels", self.out_channels
        yield "in_size", self.in_size
        yield "ksize", self.ksize
        yield "stride", self.stride
        yield "nobias", self.b is None


__all__ = ["LocalConvolution2D"]
