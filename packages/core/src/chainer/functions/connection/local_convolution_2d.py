"""Two-dimensional locally-connected convolution (no weight sharing)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.functions.array import im2col, reshape, transpose
from chainer.functions.connection import _conv_kernels as K
from chainer.functions.math import matmul
from chainer.utils import type_check


class LocalConvolution2DFunction(function_node.FunctionNode):
    """Two-dimensional local convolution of ``(x, W[, b])``; see :func:`local_convolution_2d`.

    ``W`` may have another float dtype than ``x`` (as in Chainer): the products are
    computed in the wider dtype, the output has the dtype of ``x`` and each gradient the
    dtype of its input.

    Args:
        stride: ``s`` or ``(sy, sx)``.
    """

    def __init__(self, stride: int | Sequence[int] = 1) -> None:
        self.stride = K.as_tuple(stride, 2, "stride", "chainer.functions.local_convolution_2d")

    @property
    def label(self) -> str:
        return "LocalConvolution2D"

    def check_type_forward(self, in_types: Any) -> None:
        n_in = type_check.eval(in_types.size())
        if n_in not in (2, 3):
            raise type_check.InvalidType("in_types.size() == 2 or 3 (x, W[, b])", f"in_types.size() == {n_in}")
        type_check._argname(in_types, ("x", "W", "b")[:n_in])
        x_type, w_type = in_types[0], in_types[1]
        type_check.expect(
            x_type.dtype.kind == "f",
            w_type.dtype.kind == "f",
            x_type.ndim == 4,
            w_type.ndim == 6,
            x_type.shape[1] == w_type.shape[3],
        )
        h, w = type_check.eval(x_type.shape)[2:]
        kh, kw = type_check.eval(w_type.shape)[4:]
        out_h = type_check.make_variable(K.conv_outsize(h, kh, self.stride[0], 0, 1, False), "out_h")
        out_w = type_check.make_variable(K.conv_outsize(w, kw, self.stride[1], 0, 1, False), "out_w")
        type_check.expect(w_type.shape[1] == out_h, w_type.shape[2] == out_w)
        if n_in == 3:
            b_type = in_types[2]
            type_check.expect(
                b_type.dtype == x_type.dtype,
                b_type.ndim == 3,
                b_type.shape[0] == w_type.shape[0],
                b_type.shape[1] == w_type.shape[1],
                b_type.shape[2] == w_type.shape[2],
            )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, W = inputs[0], inputs[1]
        xp = backend.get_array_module(x)
        dtype = K.compute_dtype(x.dtype, W.dtype)
        n, c, h, w = x.shape
        o, out_h, out_w, _, kh, kw = W.shape
        col = K.im2col_view(x, (kh, kw), self.stride, (0, 0), (1, 1), (out_h, out_w))  # (N, C, kh, kw, oh, ow)
        # One batched GEMM over the output positions: (L, N, C k k) @ (L, C k k, O).
        col = col.transpose(4, 5, 0, 1, 2, 3).reshape(out_h * out_w, n, c * kh * kw).astype(dtype, copy=False)
        w_mat = W.transpose(1, 2, 3, 4, 5, 0).reshape(out_h * out_w, c * kh * kw, o).astype(dtype, copy=False)
        y = xp.matmul(col, w_mat).transpose(1, 2, 0).reshape(n, o, out_h, out_w)
        if len(inputs) == 3:
            y = y + inputs[2]
        return (utils.force_array(y, x.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.array import cast
        from chainer.functions.math import sum as sum_module

        x, W = self.get_retained_inputs()
        gy = grad_outputs[0]
        n, c, h, w = x.shape
        o, out_h, out_w, _, kh, kw = W.shape
        positions, patch = out_h * out_w, c * kh * kw
        # Gradients are computed in the dtype of x (that of gy) and cast back for W.
        W_x = cast.cast(W, x.dtype) if W.dtype != x.dtype else W
        gy_l = reshape.reshape(transpose.transpose(gy, (2, 3, 0, 1)), (positions, n, o))  # (L, N, O)
        geometry = ((kh, kw), self.stride, (0, 0), False, (1, 1))
        result: list[Any] = []
        for index in indexes:
            if index == 0:
                w_l = reshape.reshape(transpose.transpose(W_x, (1, 2, 0, 3, 4, 5)), (positions, o, patch))
                gcol = matmul.matmul(gy_l, w_l)  # (L, N, C k k)
                gcol = reshape.reshape(transpose.transpose(gcol, (1, 2, 0)), (n, patch, out_h, out_w))
                result.append(im2col.Im2ColGrad((h, w), *geometry).apply((gcol,))[0])
            elif index == 1:
                col = im2col.Im2Col(*geometry).apply((x,))[0]  # (N, C k k, oh, ow)
                col_l = reshape.reshape(transpose.transpose(col, (2, 3, 0, 1)), (positions, n, patch))
                gw = matmul.matmul(col_l, gy_l, transa=True)  # (L, C k k, O)
                gw = transpose.transpose(reshape.reshape(gw, (out_h, out_w, c, kh, kw, o)), (5, 0, 1, 2, 3, 4))
                result.append(cast.cast(gw, W.dtype) if W.dtype != x.dtype else gw)
            else:
                result.append(sum_module.sum(gy, axis=0))
        return tuple(result)


def local_convolution_2d(x: Any, W: Any, b: Any = None, stride: int | Sequence[int] = 1) -> variable.Variable:
    """Two-dimensional local convolution: like :func:`convolution_2d` without padding,
    but every output position has its own kernel.

    .. math::
        y_{n,o,i,j} = b_{o,i,j} + \\sum_{c,p,q} W_{o,i,j,c,p,q}\\, x_{n,c,i s_y + p,\\, j s_x + q}

    Args:
        x: Input of shape ``(N, C, H, W)``.
        W: Kernels of shape ``(O, out_h, out_w, C, kh, kw)`` (any float dtype) with ``out_h = (H - kh) //
            sy + 1`` and ``out_w = (W - kw) // sx + 1``.
        b: Optional bias of shape ``(O, out_h, out_w)``.
        stride: ``s`` or ``(sy, sx)``.

    Returns:
        Output of shape ``(N, O, out_h, out_w)``.

    Example:
        >>> x = np.ones((1, 2, 3, 3), 'f'); W = np.ones((4, 2, 2, 2, 2, 2), 'f')
        >>> F.local_convolution_2d(x, W).shape
        (1, 4, 2, 2)
    """
    args = (x, W) if b is None else (x, W, b)
    return LocalConvolution2DFunction(stride).apply(args)[0]


__all__ = ["local_convolution_2d"]
