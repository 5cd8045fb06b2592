"""Differentiable patch extraction (im2col) and its adjoint, for functions built on
patches (local convolution). Private: the public ``F.im2col`` lives in ``array``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer import backend, function_node
from chainer.functions.connection import _conv_kernels as K


class Im2Col(function_node.FunctionNode):
    """``(N, C, *in)`` -> patches ``(N, C, *ksize, *outsize)`` (a contiguous copy)."""

    def __init__(
        self,
        ksize: Sequence[int],
        stride: Sequence[int],
        pad: Sequence[int],
        dilate: Sequence[int],
        outsize: Sequence[int],
    ) -> None:
        self.ksize = tuple(ksize)
        self.stride = tuple(stride)
        self.pad = tuple(pad)
        self.dilate = tuple(dilate)
        self.outsize = tuple(outsize)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (x,) = inputs
        self.in_size = x.shape[2:]
        xp = backend.get_array_module(x)
        view = K.im2col_view(x, self.ksize, self.stride, self.pad, self.dilate, self.outsize)
        return (xp.ascontiguousarray(view),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return Col2Im(self.stride, self.pad, self.dilate, self.in_size).apply(grad_outputs)


class Col2Im(function_node.FunctionNode):
    """Adjoint of :class:`Im2Col`: patches summed back onto an image."""

    def __init__(
        self,
        stride: Sequence[int],
        pad: Sequence[int],
        dilate: Sequence[int],
        in_size: Sequence[int],
    ) -> None:
        self.stride = tuple(stride)
        self.pad = tuple(pad)
        self.dilate = tuple(dilate)
        self.in_size = tuple(in_size)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        (col,) = inputs
        nd = len(self.in_size)
        self.ksize = col.shape[2 : 2 + nd]
        self.outsize = col.shape[2 + nd :]
        return (K.col2im(col, self.stride, self.pad, self.dilate, self.in_size),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return Im2Col(self.ksize, self.stride, self.pad, self.dilate, self.outsize).apply(grad_outputs)
