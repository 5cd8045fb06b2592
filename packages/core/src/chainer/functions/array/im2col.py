"""Extracting image patches into the channel axis."""

from __future__ import annotations

from typing import Any

from chainer import function_node, variable
from chainer.functions.array import _util
from chainer.functions.connection import _conv_kernels
from chainer.utils import conv, type_check


def _pair(value: Any, name: str) -> tuple[int, int]:
    where = "chainer.functions.im2col"
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            raise ValueError(f"{where}: {name} must be an int or a pair of ints, got {value!r}")
        pair = (_util.as_int(value[0], where, name), _util.as_int(value[1], where, name))
    else:
        pair = (_util.as_int(value, where, name),) * 2
    if any(v < 0 for v in pair) or (name != "pad" and 0 in pair):
        raise ValueError(f"{where}: {name} must be {'non-negative' if name == 'pad' else 'positive'}, got {value!r}")
    return pair


def _outsize(size: Any, ksize: Any, stride: Any, pad: Any, cover_all: bool, dilate: Any) -> tuple[int, ...]:
    return tuple(
        conv.get_conv_outsize(n, k, s, p, cover_all, d) for n, k, s, p, d in zip(size, ksize, stride, pad, dilate)
    )


class Im2Col(function_node.FunctionNode):
    """``(n, c, h, w) -> (n, c*kh*kw, out_h, out_w)``; the gradient is :class:`Im2ColGrad`."""

    def __init__(self, ksize: Any, stride: Any, pad: Any, cover_all: bool, dilate: Any) -> None:
        self.ksize = ksize
        self.stride = stride
        self.pad = pad
        self.cover_all = cover_all
        self.dilate = dilate

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("x",))
        x_type = in_types[0]
        type_check.expect(x_type.dtype.kind == "f", x_type.ndim == 4)
        h, w = type_check.eval(x_type.shape)[2:]
        outs = _outsize((h, w), self.ksize, self.stride, self.pad, self.cover_all, self.dilate)
        if min(outs) <= 0:
            raise type_check.InvalidType(
                "the output height and width are positive",
                f"they would be {outs} for x.shape[2:] == {(h, w)}, ksize={self.ksize}, stride={self.stride}, "
                f"pad={self.pad}, dilate={self.dilate}",
            )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        self._in_size = x.shape[2:]
        outs = _outsize(self._in_size, self.ksize, self.stride, self.pad, self.cover_all, self.dilate)
        # Im2ColGrad, whose scatter may be compiled, reuses this geometry: checked once here.
        geometry = (self.ksize, self.stride, self.pad, self.dilate, outs)
        _conv_kernels.check_extent(self.label, x.shape, x.dtype.itemsize, *geometry)
        col = _conv_kernels.im2col_view(x, self.ksize, self.stride, self.pad, self.dilate, outs)
        n, c, kh, kw, oh, ow = col.shape
        return (col.reshape(n, c * kh * kw, oh, ow),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return Im2ColGrad(self._in_size, self.ksize, self.stride, self.pad, self.cover_all, self.dilate).apply(
            grad_outputs
        )


class Im2ColGrad(function_node.FunctionNode):
    """Adjoint of :class:`Im2Col`: ``(n, c*kh*kw, out_h, out_w) -> (n, c, h, w)``, adding
    every patch element back to its pixel. Its gradient is :func:`im2col` again."""

    def __init__(
        self, in_size: tuple[int, int], ksize: Any, stride: Any, pad: Any, cover_all: bool, dilate: Any
    ) -> None:
        self._in_size = in_size
        self.ksize = ksize
        self.stride = stride
        self.pad = pad
        self.cover_all = cover_all
        self.dilate = dilate

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy = inputs[0]
        n, ckk, oh, ow = gy.shape
        kh, kw = self.ksize
        col = gy.reshape(n, ckk // (kh * kw), kh, kw, oh, ow)
        return (_conv_kernels.col2im(col, self.stride, self.pad, self.dilate, self._in_size),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return Im2Col(self.ksize, self.stride, self.pad, self.cover_all, self.dilate).apply(grad_outputs)


def im2col(
    x: Any, ksize: Any, stride: Any = 1, pad: Any = 0, cover_all: bool = False, dilate: Any = 1
) -> variable.Variable:
    """Extract patches from an image batch into the channel axis.

    Patches of ``kh x kw`` pixels (``dilate`` apart) start every ``stride`` pixels from
    ``-pad``; the padding is zero. Channel ``(c * kh + i) * kw + j`` of the output holds
    kernel element ``(i, j)`` of input channel ``c``:
    ``y[n, (c * kh + i) * kw + j, y_, x_] = x_pad[n, c, y_ * sy + i * dy, x_ * sx + j * dx]``.

    Args:
        x: Variable of shape ``(n, c, h, w)`` and a floating dtype.
        ksize: Patch size: an int or a pair ``(kh, kw)``.
        stride: An int or a pair ``(sy, sx)``.
        pad: Zero padding on each side: an int or a pair ``(ph, pw)``.
        cover_all: Add output positions (reading extra zero padding) so that every input
            pixel is covered by some patch.
        dilate: Spacing of the patch elements: an int or a pair ``(dy, dx)``.

    Returns:
        A variable of shape ``(n, c * kh * kw, out_h, out_w)`` with
        ``out_h = get_conv_outsize(h, kh, sy, ph, cover_all, dy)`` (likewise ``out_w``).

    Example:
        >>> x = np.arange(9, dtype='f').reshape(1, 1, 3, 3)
        >>> F.im2col(x, 2).shape
        (1, 4, 2, 2)
        >>> F.im2col(x, 2)[0, :, 0, 0].array
        array([0., 1., 3., 4.], dtype=float32)
    """
    return Im2Col(
        _pair(ksize, "ksize"), _pair(stride, "stride"), _pair(pad, "pad"), bool(cover_all), _pair(dilate, "dilate")
    ).apply((x,))[0]


__all__ = ["im2col"]
