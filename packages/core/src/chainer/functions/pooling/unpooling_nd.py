"""N-dimensional unpooling (the transpose of sum pooling), and its 1-D and 3-D forms."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer import function_node, variable
from chainer.functions.connection import _conv_kernels as K
from chainer.functions.pooling import _pooling_kernels as P
from chainer.functions.pooling import max_pooling_nd
from chainer.utils import type_check


def unpooling_geometry(
    in_size: Sequence[int],
    ksize: Sequence[int],
    stride: Sequence[int],
    pad: Sequence[int],
    outsize: Sequence[int] | None,
    cover_all: bool,
) -> P.Geometry:
    """The pooling sweep from an image of size ``outsize`` to one of size ``in_size``."""
    if outsize is None:
        outsize = tuple(K.deconv_outsize(n, k, s, p, 1, cover_all) for n, k, s, p in zip(in_size, ksize, stride, pad))
    return P.Geometry(ksize, stride, pad, outsize, in_size)


def check_outsize_matches(
    in_types: Any,
    first_axis: int,
    ksize: Sequence[int],
    stride: Sequence[int],
    pad: Sequence[int],
    outsize: Any,
    cover_all: bool,
) -> None:
    """An explicit ``outsize`` must pool back to the input's size."""
    if outsize is None:
        return
    shape = type_check.eval(in_types[0].shape)
    for axis, (n, out, k, s, p) in enumerate(zip(shape[first_axis:], outsize, ksize, stride, pad)):
        expected = K.conv_outsize(out, k, s, p, 1, cover_all)
        if expected != n:
            raise type_check.InvalidType(
                f"x.shape[{axis + first_axis}] == {expected} (pooling an image of size outsize[{axis}]={out} "
                f"with ksize={k}, stride={s}, pad={p}, cover_all={cover_all})",
                f"x.shape[{axis + first_axis}] == {n}",
            )


def unpooling_args(
    ndim: int, ksize: Any, stride: Any, pad: Any, outsize: Any, where: str
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...] | None]:
    """The window arguments of an unpooling, each as an ``ndim``-tuple (``outsize`` may be ``None``)."""
    k, s, p = P.pooling_args(ndim, ksize, stride, pad, where)
    if outsize is not None:
        outsize = K.as_tuple(outsize, ndim, "outsize", where)
    return k, s, p, outsize


class WindowSpreading(function_node.FunctionNode):
    """The base of the nodes that send each input element into its pooling window of an
    output of size ``outsize`` (by default the smallest image that pools to the input).

    A subclass checks its input with :meth:`_check_outsize` and sets the geometry of the
    sweep with :meth:`_set_geometry` in its forward.
    """

    def __init__(
        self,
        ksize: Sequence[int],
        stride: Sequence[int],
        pad: Sequence[int],
        outsize: Sequence[int] | None,
        cover_all: bool,
    ) -> None:
        self.ksize = tuple(ksize)
        self.stride = tuple(stride)
        self.pad = tuple(pad)
        self.outsize = None if outsize is None else tuple(outsize)
        self.cover_all = bool(cover_all)

    def _check_outsize(self, in_types: Any) -> None:
        check_outsize_matches(in_types, 2, self.ksize, self.stride, self.pad, self.outsize, self.cover_all)

    def _set_geometry(self, x: Any) -> P.Geometry:
        geometry = unpooling_geometry(x.shape[2:], self.ksize, self.stride, self.pad, self.outsize, self.cover_all)
        # An empty output (a padding that eats the whole output) is allowed, as in Chainer.
        if any(n < 0 for n in geometry.in_size):
            raise ValueError(f"{self.label}: the output would have size {geometry.in_size}; the padding is too large")
        self.geometry = geometry
        return geometry


class UnpoolingND(WindowSpreading):
    """Copy each input element to every position of its window (overlaps add up)."""

    def __init__(
        self,
        ndim: int,
        ksize: Sequence[int],
        stride: Sequence[int],
        pad: Sequence[int],
        outsize: Sequence[int] | None,
        cover_all: bool,
    ) -> None:
        super().__init__(ksize, stride, pad, outsize, cover_all)
        self.ndim = ndim

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type = in_types[0]
        type_check.expect(x_type.dtype.kind == "f", x_type.ndim == self.ndim + 2)
        self._check_outsize(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        return (P.window_spread(x, self._set_geometry(x)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return UnpoolingNDGrad(self).apply(grad_outputs)


class UnpoolingNDGrad(P.WindowSum):
    """The gradient of an :class:`UnpoolingND` node after its forward: each input
    element's gradient is the sum of the output gradients over its window. Its own
    gradient is the unpooling again."""

    def __init__(self, unpoolingnd: UnpoolingND) -> None:
        geometry = getattr(unpoolingnd, "geometry", None)
        if geometry is None:
            raise RuntimeError(f"{type(self).__name__}: the unpooling node has not run its forward pass yet")
        super().__init__(geometry, 1, f"{unpoolingnd.label}Grad")


def _unpooling(
    x: Any, ksize: Any, stride: Any, pad: Any, outsize: Any, cover_all: bool, ndim: int, where: str
) -> variable.Variable:
    k, s, p, outsize = unpooling_args(ndim, ksize, stride, pad, outsize, where)
    return UnpoolingND(ndim, k, s, p, outsize, cover_all).apply((x,))[0]


def unpooling_nd(
    x: Any,
    ksize: int | Sequence[int],
    stride: int | Sequence[int] | None = None,
    pad: int | Sequence[int] = 0,
    outsize: Sequence[int] | None = None,
    cover_all: bool = True,
) -> variable.Variable:
    """Inverse of N-dimensional pooling: every element of ``x`` is copied to all
    positions of its window in the output (where windows overlap, the copies add up).

    This is the transpose of sum pooling with the same ``ksize``, ``stride``, ``pad`` and
    ``cover_all``.

    Args:
        x: Input of shape ``(N, C, S_1, ..., S_d)``.
        ksize: Window size.
        stride: Window stride; ``None`` means ``ksize``.
        pad: Padding (cropped from the output).
        outsize: Output spatial size; by default the smallest image that pools to
            ``x``'s size, ``s (S - 1) + k - 2 p`` (minus ``s - 1`` with ``cover_all``).
        cover_all: Whether the pooling this inverts used ``cover_all``.

    Returns:
        Output of shape ``(N, C, *outsize)``.

    Example:
        >>> F.unpooling_nd(np.array([[[1., 2.]]], 'f'), 2, cover_all=False).array
        array([[[1., 1., 2., 2.]]], dtype=float32)
    """
    ndim = max(1, len(getattr(x, "shape", ())) - 2)
    return _unpooling(x, ksize, stride, pad, outsize, cover_all, ndim, "chainer.functions.unpooling_nd")


def unpooling_1d(
    x: Any,
    ksize: int | Sequence[int],
    stride: int | Sequence[int] | None = None,
    pad: int | Sequence[int] = 0,
    outsize: Sequence[int] | None = None,
    cover_all: bool = True,
) -> variable.Variable:
    """Inverse of 1-dimensional pooling: :func:`unpooling_nd` on ``(N, C, S)``."""
    where = "chainer.functions.unpooling_1d"
    max_pooling_nd.check_spatial_ndim(x, 1, where)
    return _unpooling(x, ksize, stride, pad, outsize, cover_all, 1, where)


def unpooling_3d(
    x: Any,
    ksize: int | Sequence[int],
    stride: int | Sequence[int] | None = None,
    pad: int | Sequence[int] = 0,
    outsize: Sequence[int] | None = None,
    cover_all: bool = True,
) -> variable.Variable:
    """Inverse of 3-dimensional pooling: :func:`unpooling_nd` on ``(N, C, D, H, W)``."""
    where = "chainer.functions.unpooling_3d"
    max_pooling_nd.check_spatial_ndim(x, 3, where)
    return _unpooling(x, ksize, stride, pad, outsize, cover_all, 3, where)


__all__ = ["unpooling_1d", "unpooling_3d", "unpooling_nd"]
