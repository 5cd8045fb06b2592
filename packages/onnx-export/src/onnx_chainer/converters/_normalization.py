"""Converters of normalization functions and dropout."""

from __future__ import annotations

from typing import Any

from onnx_chainer import onnx_helper
from onnx_chainer.converters import _common as C


def _reduced_axes(func: Any) -> tuple[int, ...]:
    x_ndim = len(func.inputs[0].shape)
    g_ndim = len(func.inputs[1].shape)
    if func.axis is None:
        return (0,) + tuple(range(g_ndim + 1, x_ndim))
    return tuple(sorted(a % x_ndim for a in func.axis))


def _param_shape(func: Any, axes: tuple[int, ...]) -> list[int]:
    return [1 if i in axes else d for i, d in enumerate(func.inputs[0].shape)]


def _is_channel_layout(func: Any, axes: tuple[int, ...]) -> bool:
    x_ndim = len(func.inputs[0].shape)
    return x_ndim >= 2 and axes == (0,) + tuple(range(2, x_ndim))


def convert_FixedBatchNormalization(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    x, gamma, beta, mean, var = input_names
    axes = _reduced_axes(func)
    dtypes = {node.dtype for node in func.inputs}
    if _is_channel_layout(func, axes) and len(dtypes) == 1:
        return onnx_helper.make_node("BatchNormalization", input_names, output_names, epsilon=float(func.eps))
    # Other layouts: y = (x - mean) * gamma / sqrt(var + eps) + beta, parameters reshaped.
    dtype = func.inputs[0].dtype
    gb = onnx_helper.GraphBuilder()
    shape = C.int64s(context, _param_shape(func, axes), "shape")
    g, b, m, v = (
        gb.op("Cast", [gb.op("Reshape", [n, shape])], to=C.onnx_dtype(dtype)) for n in (gamma, beta, mean, var)
    )
    std = gb.op("Sqrt", [gb.op("Add", [v, C.const(context, func.eps, "eps", dtype)])])
    h = gb.op("Div", [gb.op("Sub", [x, m]), std])
    gb.op("Add", [gb.op("Mul", [h, g]), b])
    return gb.nodes(output_names)


def convert_BatchNormalization(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    # Training mode: normalize with the statistics of the batch itself, as the forward
    # pass that was recorded did (biased variance).
    x, gamma, beta = input_names
    axes = _reduced_axes(func)
    dtype = func.inputs[0].dtype
    gb = onnx_helper.GraphBuilder()
    shape = C.int64s(context, _param_shape(func, axes), "shape")
    g = gb.op("Cast", [gb.op("Reshape", [gamma, shape])], to=C.onnx_dtype(dtype))
    b = gb.op("Cast", [gb.op("Reshape", [beta, shape])], to=C.onnx_dtype(dtype))
    mean = C.reduce(gb, "ReduceMean", x, axes, True, opset_version, context)
    d = gb.op("Sub", [x, mean])
    var = C.reduce(gb, "ReduceMean", gb.op("Mul", [d, d]), axes, True, opset_version, context)
    std = gb.op("Sqrt", [gb.op("Add", [var, C.const(context, func.eps, "eps", dtype)])])
    gb.op("Add", [gb.op("Mul", [gb.op("Div", [d, std]), g]), b])
    return gb.nodes(output_names)


def convert_LocalResponseNormalization(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    # Chainer sums over channels c - n//2 .. c + n//2 and scales the sum by alpha;
    # ONNX scales it by alpha / size.
    size = 2 * func.half + 1
    return onnx_helper.make_node(
        "LRN",
        input_names,
        output_names,
        size=size,
        alpha=float(func.alpha) * size,
        beta=float(func.beta),
        bias=float(func.k),
    )


def convert_NormalizeL2(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    x = input_names[0]
    dtype = func.inputs[0].dtype
    gb = onnx_helper.GraphBuilder()
    sq = C.reduce(gb, "ReduceSum", gb.op("Mul", [x, x]), list(func.axis), True, opset_version, context)
    norm = gb.op("Add", [gb.op("Sqrt", [sq]), C.const(context, func.eps, "eps", dtype)])
    gb.op("Div", [x, norm])
    return gb.nodes(output_names)


def convert_Dropout(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    # Dropout is only in the graph when exporting with train=True; ONNX Dropout is the
    # identity at inference, which is what runtimes run.
    if opset_version >= 12:
        ratio = C.const(context, func.dropout_ratio, "ratio", func.inputs[0].dtype)
        return onnx_helper.make_node("Dropout", [input_names[0], ratio], output_names)
    return onnx_helper.make_node("Dropout", input_names, output_names, ratio=float(func.dropout_ratio))


CONVERTERS = {
    "BatchNormalization": convert_BatchNormalization,
    "FixedBatchNormalization": convert_FixedBatchNormalization,
    "LocalResponseNormalization": convert_LocalResponseNormalization,
    "NormalizeL2": convert_NormalizeL2,
    "Dropout": convert_Dropout,
}
