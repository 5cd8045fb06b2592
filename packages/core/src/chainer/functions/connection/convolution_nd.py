"""N-dimensional convolution (cross-correlation), and its 1-D and 3-D forms."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from chainer import function_node, variable
from chainer.functions.connection import _conv_kernels as K
from chainer.utils import type_check


def check_groups(groups: Any, where: str) -> int:
    if not isinstance(groups, int) or isinstance(groups, bool) or groups < 1:
        raise ValueError(f"{where}: groups must be a positive int, got {groups!r}")
    return groups


def check_spatial_ndim(x: Any, ndim: int, where: str) -> None:
    """The 1-D/2-D/3-D wrappers ask for exactly ``ndim`` spatial axes."""
    actual = len(getattr(x, "shape", ())) - 2
    if actual != ndim:
        raise ValueError(
            f"{where}: x must have {ndim} spatial axis(es), i.e. shape (N, C{', S' * ndim}); "
            f"got an input of shape {tuple(getattr(x, 'shape', ()))}"
        )


def _positive_outsize(outsize: Sequence[int], in_size: Sequence[int], label: str) -> None:
    if any(o <= 0 for o in outsize):
        raise K.OutputSizeError(
            f"{label}: the output would have size {tuple(outsize)} for an input of spatial size {tuple(in_size)}; "
            "the (dilated) kernel does not fit in the padded input"
        )


def check_x_w_types(in_types: Any, ndim: int) -> tuple[int, Any, Any]:
    """The type checks every (de)convolution node starts with: argument names, floating
    ``x`` and ``W`` with ``ndim`` spatial axes. Returns the number of inputs and the
    types of ``x`` and ``W``."""
    n_in = type_check.eval(in_types.size())
    type_check._argname(in_types, ("x", "W", "b")[: max(2, min(n_in, 3))])
    x_type, w_type = in_types[0], in_types[1]
    type_check.expect(
        x_type.dtype.kind == "f",
        w_type.dtype.kind == "f",
        x_type.ndim == ndim + 2,
        w_type.ndim == ndim + 2,
    )
    return n_in, x_type, w_type


def check_bias_type(b_type: Any, x_type: Any, channels: Any) -> None:
    type_check.expect(b_type.dtype == x_type.dtype, b_type.ndim == 1, b_type.shape[0] == channels)


def bias_grad(gy: Any, ndim: int) -> variable.Variable:
    """Gradient of a per-channel bias added to ``gy``'s (N, C, *spatial) output."""
    from chainer.functions.math import sum as sum_module

    return sum_module.sum(gy, axis=(0,) + tuple(range(2, 2 + ndim)))


def backward_by_index(indexes: tuple[int, ...], *grads: Callable[[], Any]) -> tuple[Any, ...]:
    """The gradients a node's ``backward`` returns for the inputs ``indexes`` asks for:
    ``grads[i]()`` computes the gradient of input ``i`` (``x``, ``W``, then ``b``), and only
    the requested ones are computed, in the order of ``indexes``."""
    return tuple(grads[i]() for i in indexes)


def convolution_like(node: Any, x: Any, W: Any, outsize: Sequence[int]) -> variable.Variable:
    """:class:`ConvolutionND` of ``x`` with ``W`` in the geometry (``ndim``, ``stride``,
    ``pad``, ``dilate``, ``groups``) of ``node``, with the output size ``outsize``."""
    return ConvolutionND(node.ndim, node.stride, node.pad, False, node.dilate, node.groups, outsize).apply((x, W))[0]


def deconvolution_like(node: Any, x: Any, W: Any, outsize: Sequence[int]) -> variable.Variable:
    """The transposed convolution of ``x`` with ``W`` in the geometry of ``node`` (see
    :func:`convolution_like`), with the output size ``outsize``."""
    from chainer.functions.connection import deconvolution_nd

    deconv = deconvolution_nd.DeconvolutionND(node.ndim, node.stride, node.pad, outsize, node.dilate, node.groups)
    return deconv.apply((x, W))[0]


def geometry(
    stride: Any, pad: Any, dilate: Any, groups: Any, ndim: int, where: str
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], int]:
    """The checked ``stride``, ``pad``, ``dilate`` and ``groups`` of a public wrapper."""
    return (
        K.as_tuple(stride, ndim, "stride", where),
        K.as_tuple(pad, ndim, "pad", where, minimum=0),
        K.as_tuple(dilate, ndim, "dilate", where),
        check_groups(groups, where),
    )


class ConvolutionND(function_node.FunctionNode):
    """Grouped N-D cross-correlation ``y = W * x + b``.

    ``outsize`` fixes the output size explicitly (used by backward passes); otherwise
    it follows from ``cover_all``.
    """

    def __init__(
        self,
        ndim: int,
        stride: int | Sequence[int] = 1,
        pad: int | Sequence[int] = 0,
        cover_all: bool = False,
        dilate: int | Sequence[int] = 1,
        groups: int = 1,
        outsize: Sequence[int] | None = None,
    ) -> None:
        self.ndim = ndim
        self.stride = K.geometry_tuple(stride, ndim)
        self.pad = K.geometry_tuple(pad, ndim)
        self.cover_all = bool(cover_all)
        self.dilate = K.geometry_tuple(dilate, ndim)
        self.groups = groups
        self.outsize = None if outsize is None else tuple(outsize)

    def check_type_forward(self, in_types: Any) -> None:
        n_in, x_type, w_type = check_x_w_types(in_types, self.ndim)
        if self.groups == 1:
            type_check.expect(x_type.shape[1] == w_type.shape[1])
        else:
            groups = type_check.make_variable(self.groups, "groups")
            type_check.expect(x_type.shape[1] == w_type.shape[1] * groups, w_type.shape[0] % groups == 0)
        if n_in == 3:
            check_bias_type(in_types[2], x_type, w_type.shape[0])

    def _output_size(self, in_size: Sequence[int], ksize: Sequence[int]) -> tuple[int, ...]:
        if self.outsize is not None:
            return self.outsize
        return tuple(
            K.conv_outsize(n, k, s, p, d, self.cover_all)
            for n, k, s, p, d in zip(in_size, ksize, self.stride, self.pad, self.dilate)
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, W = inputs[0], inputs[1]
        b = inputs[2] if len(inputs) == 3 else None
        outsize = self._output_size(x.shape[2:], W.shape[2:])
        _positive_outsize(outsize, x.shape[2:], self.label)
        itemsize = K.compute_dtype(x.dtype, W.dtype).itemsize
        K.check_extent(self.label, x.shape, itemsize, W.shape[2:], self.stride, self.pad, self.dilate, outsize)
        self.outsize = outsize
        return (K.conv_forward(x, W, b, self.stride, self.pad, self.dilate, self.groups, outsize),)

    @property
    def _grad_w_class(self) -> type[ConvolutionNDGradW]:
        return ConvolutionNDGradW

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, W = self.get_retained_inputs()
        (gy,) = grad_outputs
        return backward_by_index(
            indexes,
            lambda: deconvolution_like(self, gy, W, x.shape[2:]),
            lambda: self._grad_w_class(self, W.shape, W.dtype).apply((x, gy))[0],
            lambda: bias_grad(gy, self.ndim),
        )


class ConvolutionNDGradW(function_node.FunctionNode):
    """Kernel gradient of a convolution, from its input ``x`` and output gradient ``gy``.

    It is bilinear in ``(x, gy)``; its own backward is again a convolution (towards
    ``gy``) and a transposed convolution (towards ``x``) with the kernel ``ggW``.
    """

    def __init__(self, conv: Any, w_shape: Sequence[int], w_dtype: Any) -> None:
        # ``conv`` is the ConvolutionND (or DeconvolutionND) node whose geometry applies.
        self.ndim = conv.ndim
        self.stride = conv.stride
        self.pad = conv.pad
        self.dilate = conv.dilate
        self.groups = conv.groups
        self.ksize = tuple(w_shape[2:])
        self.w_dtype = w_dtype

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        itemsize = K.compute_dtype(x.dtype, gy.dtype).itemsize
        K.check_extent(self.label, x.shape, itemsize, self.ksize, self.stride, self.pad, self.dilate, gy.shape[2:])
        gW = K.conv_grad_weight(x, gy, self.ksize, self.stride, self.pad, self.dilate, self.groups, self.w_dtype)
        return (gW,)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, gy = self.get_retained_inputs()
        (ggW,) = grad_outputs
        return backward_by_index(
            indexes,
            lambda: deconvolution_like(self, gy, ggW, x.shape[2:]),
            lambda: convolution_like(self, x, ggW, gy.shape[2:]),
        )


def _convolution(
    x: Any,
    W: Any,
    b: Any,
    stride: Any,
    pad: Any,
    cover_all: bool,
    dilate: Any,
    groups: int,
    ndim: int,
    where: str,
    node_class: Callable[..., ConvolutionND] = ConvolutionND,
) -> variable.Variable:
    stride, pad, dilate, groups = geometry(stride, pad, dilate, groups, ndim, where)
    node = node_class(ndim, stride, pad, cover_all, dilate, groups)
    args = (x, W) if b is None else (x, W, b)
    return node.apply(args)[0]


def convolution_nd(
    x: Any,
    W: Any,
    b: Any = None,
    stride: int | Sequence[int] = 1,
    pad: int | Sequence[int] = 0,
    cover_all: bool = False,
    dilate: int | Sequence[int] = 1,
    groups: int = 1,
) -> variable.Variable:
    """N-dimensional convolution (cross-correlation) with optional groups and dilation.

    With ``d`` spatial axes, the output is

    .. math::
        y_{n,o,\\mathbf{i}} = b_o + \\sum_{c,\\mathbf{k}} W_{o,c,\\mathbf{k}}\\,
        x_{n,\\,g(o) C_g + c,\\,\\mathbf{i}\\mathbf{s} + \\mathbf{k}\\mathbf{d} - \\mathbf{p}}

    where out-of-range ``x`` is zero (the padding), ``g(o)`` is the group of output
    channel ``o`` and ``C_g = C / groups``.

    Args:
        x: Input of shape ``(N, C, S_1, ..., S_d)``.
        W: Kernel of shape ``(O, C / groups, k_1, ..., k_d)``.
        b: Optional bias of shape ``(O,)``; it must have ``x``'s dtype.
        stride: Stride of the window (an int or a sequence of ``d`` ints).
        pad: Zero padding on both sides of each spatial axis.
        cover_all: If ``True``, add windows at the end so that every input element is
            covered (the last window may then read further padding).
        dilate: Dilation of the kernel (spacing between kernel taps).
        groups: Number of channel groups; ``C`` and ``O`` must be multiples of it.

    Returns:
        Output of shape ``(N, O, L_1, ..., L_d)`` with
        ``L_i = (S_i + 2 p_i - (k_i - 1) d_i - 1) // s_i + 1`` (without ``cover_all``).

    Example:
        >>> x = np.ones((1, 1, 4, 4, 4), 'f'); W = np.ones((2, 1, 3, 3, 3), 'f')
        >>> F.convolution_nd(x, W).shape
        (1, 2, 2, 2, 2)
    """
    ndim = max(1, len(getattr(x, "shape", ())) - 2)
    return _convolution(x, W, b, stride, pad, cover_all, dilate, groups, ndim, "chainer.functions.convolution_nd")


def convolution_1d(
    x: Any,
    W: Any,
    b: Any = None,
    stride: int | Sequence[int] = 1,
    pad: int | Sequence[int] = 0,
    cover_all: bool = False,
    dilate: int | Sequence[int] = 1,
    groups: int = 1,
) -> variable.Variable:
    """1-dimensional convolution: :func:`convolution_nd` on ``x`` of shape ``(N, C, S)``.

    Example:
        >>> F.convolution_1d(np.ones((1, 1, 5), 'f'), np.ones((1, 1, 3), 'f')).array
        array([[[3., 3., 3.]]], dtype=float32)
    """
    where = "chainer.functions.convolution_1d"
    check_spatial_ndim(x, 1, where)
    return _convolution(x, W, b, stride, pad, cover_all, dilate, groups, 1, where)


def convolution_3d(
    x: Any,
    W: Any,
    b: Any = None,
    stride: int | Sequence[int] = 1,
    pad: int | Sequence[int] = 0,
    cover_all: bool = False,
    dilate: int | Sequence[int] = 1,
    groups: int = 1,
) -> variable.Variable:
    """3-dimensional convolution: :func:`convolution_nd` on ``x`` of shape ``(N, C, D, H, W)``.

    Example:
        >>> F.convolution_3d(np.ones((1, 1, 3, 3, 3), 'f'), np.ones((4, 1, 3, 3, 3), 'f')).shape
        (1, 4, 1, 1, 1)
    """
    where = "chainer.functions.convolution_3d"
    check_spatial_ndim(x, 3, where)
    return _convolution(x, W, b, stride, pad, cover_all, dilate, groups, 3, where)


__all__ = ["convolution_1d", "convolution_3d", "convolution_nd"]
