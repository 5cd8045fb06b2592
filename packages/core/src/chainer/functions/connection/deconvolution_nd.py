"""N-dimensional transposed convolution ("deconvolution"), and its 1-D and 3-D forms."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from chainer import function_node, variable
from chainer.functions.connection import _conv_kernels as K
from chainer.functions.connection import convolution_nd
from chainer.utils import type_check


class DeconvolutionND(function_node.FunctionNode):
    """Grouped N-D transposed convolution, the adjoint in ``x`` of :class:`ConvolutionND`."""

    def __init__(
        self,
        ndim: int,
        stride: int | Sequence[int] = 1,
        pad: int | Sequence[int] = 0,
        outsize: Sequence[int] | None = None,
        dilate: int | Sequence[int] = 1,
        groups: int = 1,
    ) -> None:
        self.ndim = ndim
        self.stride = K.geometry_tuple(stride, ndim)
        self.pad = K.geometry_tuple(pad, ndim)
        self.outsize = None if outsize is None else tuple(outsize)
        self.dilate = K.geometry_tuple(dilate, ndim)
        self.groups = groups

    @property
    def outs(self) -> tuple[int, ...] | None:
        """The output size (Chainer's name for it)."""
        return self.outsize

    def check_type_forward(self, in_types: Any) -> None:
        n_in, x_type, w_type = convolution_nd.check_x_w_types(in_types, self.ndim)
        type_check.expect(x_type.shape[1] == w_type.shape[0])
        if self.groups > 1:
            groups = type_check.make_variable(self.groups, "groups")
            type_check.expect(w_type.shape[0] % groups == 0)
        if self.outsize is not None:
            in_size = type_check.eval(x_type.shape)[2:]
            ksize = type_check.eval(w_type.shape)[2:]
            for axis, (n, out, k, s, p, d) in enumerate(
                zip(in_size, self.outsize, ksize, self.stride, self.pad, self.dilate)
            ):
                lower = K.conv_outsize(out, k, s, p, d, False)
                upper = K.conv_outsize(out, k, s, p, d, True)
                if not lower <= n <= upper:
                    raise type_check.InvalidType(
                        f"{lower} <= x.shape[{axis + 2}] <= {upper} (the input sizes that a convolution of an "
                        f"image of size outsize[{axis}]={out} can produce)",
                        f"x.shape[{axis + 2}] == {n}",
                    )
        if n_in == 3:
            groups = type_check.make_variable(self.groups, "groups")
            convolution_nd.check_bias_type(in_types[2], x_type, w_type.shape[1] * groups)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, W = inputs[0], inputs[1]
        b = inputs[2] if len(inputs) == 3 else None
        if self.outsize is None:
            self.outsize = tuple(
                K.deconv_outsize(n, k, s, p, d)
                for n, k, s, p, d in zip(x.shape[2:], W.shape[2:], self.stride, self.pad, self.dilate)
            )
        if any(o <= 0 for o in self.outsize):
            raise K.OutputSizeError(
                f"{self.label}: the output would have size {self.outsize} for an input of spatial size "
                f"{tuple(x.shape[2:])}; the padding is larger than the transposed convolution's output"
            )
        # The output is the image of the convolution this transposes; x holds its windows.
        image_shape = (x.shape[0], W.shape[1] * self.groups) + self.outsize
        itemsize = K.compute_dtype(x.dtype, W.dtype).itemsize
        K.check_extent(self.label, image_shape, itemsize, W.shape[2:], self.stride, self.pad, self.dilate, x.shape[2:])
        return (K.deconv_forward(x, W, b, self.stride, self.pad, self.dilate, self.groups, self.outsize),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, W = self.get_retained_inputs()
        (gy,) = grad_outputs
        # The kernel gradient of y = deconv(x, W) is that of the convolution gy -> x with
        # the roles of input and output exchanged.
        return convolution_nd.backward_by_index(
            indexes,
            lambda: convolution_nd.convolution_like(self, gy, W, x.shape[2:]),
            lambda: convolution_nd.ConvolutionNDGradW(self, W.shape, W.dtype).apply((gy, x))[0],
            lambda: convolution_nd.bias_grad(gy, self.ndim),
        )


def _deconvolution(
    x: Any,
    W: Any,
    b: Any,
    stride: Any,
    pad: Any,
    outsize: Any,
    dilate: Any,
    groups: int,
    ndim: int,
    where: str,
    node_class: Callable[..., DeconvolutionND] = DeconvolutionND,
) -> variable.Variable:
    if outsize is not None:
        outsize = K.as_tuple(outsize, ndim, "outsize", where)
    stride, pad, dilate, groups = convolution_nd.geometry(stride, pad, dilate, groups, ndim, where)
    node = node_class(ndim, stride, pad, outsize, dilate, groups)
    args = (x, W) if b is None else (x, W, b)
    return node.apply(args)[0]


def deconvolution_nd(
    x: Any,
    W: Any,
    b: Any = None,
    stride: int | Sequence[int] = 1,
    pad: int | Sequence[int] = 0,
    outsize: Sequence[int] | None = None,
    dilate: int | Sequence[int] = 1,
    groups: int = 1,
) -> variable.Variable:
    """N-dimensional transposed convolution (also called deconvolution).

    It is the gradient of :func:`convolution_nd` with respect to its input: every input
    element scatters ``W`` (scaled by its value) onto the output, windows ``stride``
    apart, and the ``pad`` outermost elements of each axis are cropped.

    Args:
        x: Input of shape ``(N, C_in, S_1, ..., S_d)``.
        W: Kernel of shape ``(C_in, C_out / groups, k_1, ..., k_d)``.
        b: Optional bias of shape ``(C_out,)``; it must have ``x``'s dtype.
        stride: Stride (an int or a sequence of ``d`` ints).
        pad: Cropping of each spatial axis on both sides.
        outsize: Output spatial size. By default
            ``s_i (S_i - 1) + (k_i - 1) d_i + 1 - 2 p_i``; with a stride, larger sizes
            (up to ``s_i - 1`` more) that convolve back to ``S_i`` are allowed too.
        dilate: Dilation of the kernel.
        groups: Number of channel groups; ``C_in`` must be a multiple of it.

    Returns:
        Output of shape ``(N, C_out, *outsize)``.

    Example:
        >>> x = np.ones((1, 1, 2, 2, 2), 'f'); W = np.ones((1, 3, 2, 2, 2), 'f')
        >>> F.deconvolution_nd(x, W, stride=2).shape
        (1, 3, 4, 4, 4)
    """
    ndim = max(1, len(getattr(x, "shape", ())) - 2)
    return _deconvolution(x, W, b, stride, pad, outsize, dilate, groups, ndim, "chainer.functions.deconvolution_nd")


def deconvolution_1d(
    x: Any,
    W: Any,
    b: Any = None,
    stride: int | Sequence[int] = 1,
    pad: int | Sequence[int] = 0,
    outsize: Sequence[int] | None = None,
    dilate: int | Sequence[int] = 1,
    groups: int = 1,
) -> variable.Variable:
    """1-dimensional transposed convolution: :func:`deconvolution_nd` on ``(N, C, S)``.

    Example:
        >>> F.deconvolution_1d(np.ones((1, 1, 2), 'f'), np.ones((1, 1, 2), 'f')).array
        array([[[1., 2., 1.]]], dtype=float32)
    """
    where = "chainer.functions.deconvolution_1d"
    convolution_nd.check_spatial_ndim(x, 1, where)
    return _deconvolution(x, W, b, stride, pad, outsize, dilate, groups, 1, where)


def deconvolution_3d(
    x: Any,
    W: Any,
    b: Any = None,
    stride: int | Sequence[int] = 1,
    pad: int | Sequence[int] = 0,
    outsize: Sequence[int] | None = None,
    dilate: int | Sequence[int] = 1,
    groups: int = 1,
) -> variable.Variable:
    """3-dimensional transposed convolution: :func:`deconvolution_nd` on ``(N, C, D, H, W)``.

    Example:
        >>> F.deconvolution_3d(np.ones((1, 2, 1, 1, 1), 'f'), np.ones((2, 1, 2, 2, 2), 'f')).shape
        (1, 1, 2, 2, 2)
    """
    where = "chainer.functions.deconvolution_3d"
    convolution_nd.check_spatial_ndim(x, 3, where)
    return _deconvolution(x, W, b, stride, pad, outsize, dilate, groups, 3, where)


__all__ = ["deconvolution_1d", "deconvolution_3d", "deconvolution_nd"]
