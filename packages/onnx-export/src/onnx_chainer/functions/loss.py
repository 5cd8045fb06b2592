"""Converters of loss functions (``chainer.functions.loss``)."""

from __future__ import annotations

from typing import Any

import numpy

from chainer.backends import cuda
from onnx_chainer import onnx_helper
from onnx_chainer.functions import _common as C

__all__ = ["convert_SoftmaxCrossEntropy"]


def convert_SoftmaxCrossEntropy(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    # loss_i = -class_weight[t_i] * log_softmax(x)[i, t_i], 0 where t_i is the ignored label;
    # reduce='mean' sums them and divides by the number of counted labels (normalize) or
    # by the batch size.
    C.require_opset(func, opset_version, 9, "ONNX OneHot")
    x_shape = tuple(func.inputs[0].shape)
    ndim = len(x_shape)
    n_classes = x_shape[1]
    dtype = func.inputs[0].dtype
    x, t = input_names
    gb = onnx_helper.GraphBuilder()
    if ndim > 2:
        # Classes last, so that LogSoftmax and OneHot work on the last axis.
        x = gb.op("Transpose", [x], perm=[0, *range(2, ndim), 1])
    log_p = gb.op("LogSoftmax", [x], axis=ndim - 1)
    # int64 labels: the type every runtime's OneHot takes.
    t = gb.op("Cast", [t], to=C.onnx_dtype(numpy.int64))
    ignore = C.const(context, func.ignore_label, "ignore_label", numpy.int64)
    counted = gb.op("Not", [gb.op("Equal", [t, ignore])])
    # Ignored labels pick class 0; their loss is masked out below.
    t_safe = gb.op("Mul", [t, gb.op("Cast", [counted], to=C.onnx_dtype(numpy.int64))])
    depth = C.int64s(context, [n_classes], "depth")
    values = C.const(context, [0, 1], "one_hot_values", dtype)
    one_hot = gb.op("OneHot", [t_safe, depth, values], axis=-1)
    picked = C.reduce(gb, "ReduceSum", gb.op("Mul", [log_p, one_hot]), [ndim - 1], False, opset_version, context)
    mask = gb.op("Cast", [counted], to=C.onnx_dtype(dtype))
    loss = gb.op("Mul", [gb.op("Neg", [picked]), mask])
    if func.class_weight is not None:
        weight = context.add_const(numpy.asarray(cuda.to_cpu(func.class_weight), dtype), "class_weight")
        loss = gb.op("Mul", [loss, gb.op("Gather", [weight, t_safe], axis=0)])
    if func.reduce == "no":
        gb.op("Identity", [loss])
        return gb.nodes(output_names)
    total = C.reduce(gb, "ReduceSum", loss, None, False, opset_version, context)
    if func.normalize:
        count = C.reduce(gb, "ReduceSum", mask, None, False, opset_version, context)
        denominator = gb.op("Max", [count, C.const(context, 1, "one", dtype)])
    else:
        denominator = C.const(context, x_shape[0], "batch_size", dtype)
    gb.op("Div", [total, denominator])
    return gb.nodes(output_names)
