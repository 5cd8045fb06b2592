"""Fully-connected (affine) transformation."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import configuration, function_node, utils, variable
from chainer.backends import _cuda_blas, cpu_kernels, intel64
from chainer.utils import type_check

# Batches up to this many rows take the W x^T form of the forward product (see forward).
_SMALL_BATCH = 64
_FLOAT32 = numpy.dtype(numpy.float32)


def _dot(a: Any, b: Any) -> Any:
    """``a.dot(b)``; on CuPy through :mod:`chainer.backends._cuda_blas` where it takes the
    operands (cheaper on the host than CuPy's ``dot``, and capturable into a CUDA Graph)."""
    if type(a) is not numpy.ndarray:
        y = _cuda_blas.matmul(a, b)
        if y is not None:
            return y
    return a.dot(b)


class LinearFunction(function_node.FunctionNode):
    """:math:`y = x W^\\top + b` on a 2-dimensional ``x``."""

    # The check reads only the inputs' types: apply() runs it once per input signature.
    _type_check_reads_inputs_only = True

    def check_type_forward(self, in_types: Any) -> None:
        n_in = type_check.eval(in_types.size())
        if n_in not in (2, 3):
            raise type_check.InvalidType("in_types.size() == 2 or 3 (x, W[, b])", f"in_types.size() == {n_in}")
        names = ("x", "W", "b")[:n_in]
        type_check._argname(in_types, names)
        x_type, w_type = in_types[0], in_types[1]
        type_check.expect(
            x_type.dtype.kind == "f",
            w_type.dtype.kind == "f",
            x_type.ndim == 2,
            w_type.ndim == 2,
            x_type.shape[1] == w_type.shape[1],
        )
        if n_in == 3:
            b_type = in_types[2]
            type_check.expect(b_type.dtype == x_type.dtype, b_type.ndim == 1, b_type.shape[0] == w_type.shape[0])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, W = inputs[0], inputs[1]
        b = inputs[2] if len(inputs) == 3 else None
        if type(x) is numpy.ndarray and (y := intel64.run("linear_forward", x, W, b)) is not None:
            return (y,)
        if (
            type(x) is numpy.ndarray
            and x.dtype == _FLOAT32
            and W.dtype == _FLOAT32
            and x.ndim == 2
            and x.shape[0] <= _SMALL_BATCH
            and x.shape[0] < W.shape[0]
        ):
            # OpenBLAS computes x W^T for a small batch (an RNN step, a CNN's dense layers)
            # 1.3-1.7x slower than the same products as W x^T (e.g. 170 against 106 us for
            # 20x200 by 200x1000), and the copy back to C order is cheap. float32 only:
            # there both gave the same bits on 300 random shapes (OpenBLAS 0.3.31), while
            # in float64 they differed in the last bit on about half of them.
            y_t = W.dot(x.T)
            kernel = cpu_kernels.get("transpose_add_bias")
            if kernel is not None:
                # The copy back and the bias in one cache-blocked pass (6 against 24 us at
                # 20x1000; NumPy's transposed copy walks the columns of the whole array).
                y = numpy.empty((x.shape[0], W.shape[0]), y_t.dtype)
                if kernel(y_t, inputs[2] if len(inputs) == 3 else None, y):
                    return (y,)
            y = numpy.ascontiguousarray(y_t.T)
        else:
            y = _dot(x, W.T)
        if y.dtype != x.dtype:
            y = y.astype(x.dtype, copy=False)
        if len(inputs) == 3:
            y += inputs[2]
        return (utils.force_array(y),)

    # Backprop computes the weight's and the bias's gradients as arrays where they are
    # leaves, and adds the weight's into the sum of its earlier gradients in place.
    _leaf_gradient_inputs = frozenset((1, 2))

    def _leaf_gradient_job(self, index: int, grad_outputs: tuple[Any, ...]) -> tuple[Any, bool, Any] | None:
        from chainer.functions.math import sum as sum_module

        gy_var = grad_outputs[0]
        gy = gy_var._array
        x_node = self.inputs[0]
        x = x_node.data
        if type(gy) is not numpy.ndarray or type(x) is not numpy.ndarray:
            return None
        if index == 2:
            # What backward's F.sum(gy, axis=0) computes.
            grad_bias = sum_module.Sum((0,), False)
            return (lambda: grad_bias.forward((gy,))[0]), gy_var._requires_grad, None
        grad_weight = LinearGradWeight(self.inputs[1].dtype)
        accumulate = None
        # GEMM's beta = 1 adds g_y^T x into the sum so far as it computes it (the bits of
        # the product and an add, one pass fewer over the weight per use). Not where
        # '@intel64' computes the product: its bits are oneDNN's.
        kernel = cpu_kernels.get("gemm_tn_accumulate")
        if kernel is not None and configuration.config.use_ideep == "never":

            def accumulate(buffer: Any) -> bool:
                return bool(kernel(gy, x, buffer))

        return (lambda: grad_weight.forward((x, gy))[0]), x_node._requires_grad or gy_var._requires_grad, accumulate

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.math import sum as sum_module

        x, W = self.get_retained_inputs()
        gy = grad_outputs[0]
        result = []
        for i in indexes:
            if i == 0:
                result.append(LinearGradData().apply((W, gy))[0])
            elif i == 1:
                result.append(LinearGradWeight(W.dtype).apply((x, gy))[0])
            else:
                result.append(sum_module.sum(gy, axis=0))
        return tuple(result)


class LinearGradData(function_node.FunctionNode):
    """:math:`g_x = g_y W`."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        W, gy = inputs
        if type(gy) is numpy.ndarray and (gx := intel64.run("linear_backward_data", gy, W)) is not None:
            return (gx,)
        gx = _dot(gy, W)
        return (utils.force_array(gx.astype(gy.dtype, copy=False)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        W, gy = self.get_retained_inputs()
        ggx = grad_outputs[0]
        result = []
        for i in indexes:
            if i == 0:
                result.append(LinearGradWeight(W.dtype).apply((ggx, gy))[0])
            else:
                result.append(linear(ggx, W))
        return tuple(result)


class LinearGradWeight(function_node.FunctionNode):
    """:math:`g_W = g_y^\\top x`."""

    def __init__(self, w_dtype: Any) -> None:
        self._w_dtype = w_dtype

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        gW = intel64.run("linear_backward_weights", x, gy) if type(x) is numpy.ndarray else None
        if gW is None:
            gW = _dot(gy.T, x)
        return (utils.force_array(gW.astype(self._w_dtype, copy=False)),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, gy = self.get_retained_inputs()
        ggW = grad_outputs[0]
        result = []
        for i in indexes:
            if i == 0:
                result.append(LinearGradData().apply((ggW, gy))[0])
            else:
                result.append(linear(x, ggW))
        return tuple(result)


def linear(x: Any, W: Any, b: Any = None, n_batch_axes: int = 1) -> variable.Variable:
    """Linear (fully-connected) function, :math:`y = x W^\\top + b`.

    Args:
        x: Input of shape ``(s_1, ..., s_n, d_1, ..., d_m)`` where the first
            ``n_batch_axes`` axes are batch axes; the rest is flattened to ``d_1 * ... * d_m``.
        W: Weight of shape ``(M, N)`` with ``N = d_1 * ... * d_m``.
        b: Optional bias of shape ``(M,)``.
        n_batch_axes: Number of leading batch axes of ``x``.

    Returns:
        Output of shape ``(s_1, ..., s_n, M)``.

    Example:
        >>> x = np.ones((2, 3), 'f'); W = np.ones((4, 3), 'f')
        >>> F.linear(x, W).shape
        (2, 4)
    """
    from chainer.functions.array import reshape

    if not isinstance(n_batch_axes, int) or n_batch_axes <= 0:
        raise ValueError(f"chainer.functions.linear: n_batch_axes must be a positive int, got {n_batch_axes!r}")
    x = variable.as_variable(x)
    batch_shape = x.shape[:n_batch_axes]
    if x.ndim != 2 or n_batch_axes != 1:
        batch_size = 1
        for s in batch_shape:
            batch_size *= s
        x = reshape.reshape(x, (batch_size, -1) if batch_size else (0, utils.size_of_shape(x.shape[n_batch_axes:])))
    args = (x, W) if b is None else (x, W, b)
    y = LinearFunction().apply(args)[0]
    if n_batch_axes > 1:
        y = reshape.reshape(y, batch_shape + (y.shape[-1],))
    return y


__all__ = ["linear"]
