"""Converters of normalization functions (``chainer.functions.normalization``)."""

from __future__ import annotations

from typing import Any

import numpy

from chainer.backends import cuda
from onnx_chainer import onnx_helper
from onnx_chainer.functions import _common as C

__all__ = [
    "convert_BatchNormalization",
    "convert_FixedBatchNormalization",
    "convert_LocalResponseNormalization",
    "convert_NormalizeL2",
]


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


def _normalize(
    func: Any,
    opset_version: int,
    x: str,
    gamma: str,
    beta: str,
    mean: str,
    var: str,
    output_names: list[str],
    context: Any,
) -> Any:
    """``y = (x - mean) / sqrt(var + eps) * gamma + beta``: one ONNX BatchNormalization
    for the channel layout (statistics per axis 1), else elementwise."""
    axes = _reduced_axes(func)
    dtypes = {node.dtype for node in func.inputs[:3]}
    if _is_channel_layout(func, axes) and len(dtypes) == 1:
        return onnx_helper.make_node(
            "BatchNormalization", [x, gamma, beta, mean, var], output_names, epsilon=float(func.eps)
        )
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


def _link_prefix(func: Any, context: Any) -> str | None:
    """``param_<path>`` of the link whose gamma or beta the function uses, if any."""
    for node in func.inputs[1:3]:
        var = node.get_variable_or_none()
        name = context.param_name(var) if var is not None else None
        if name is not None:
            return name.rsplit("_", 1)[0]
    return None


def _add_statistic(func: Any, array: Any, suffix: str, prefix: str | None, context: Any) -> str:
    if prefix is None:
        return context.add_param(array, suffix)
    return context.add_param(array, f"{prefix}_{suffix}", use_original_name=True)


def _batch_statistics(func: Any, axes: tuple[int, ...]) -> tuple[numpy.ndarray, numpy.ndarray]:
    """The mean and (biased) variance the forward pass normalized with."""
    dtype = func.inputs[0].dtype
    x = func.inputs[0].data
    if x is None:
        var_node = func.inputs[0].get_variable_or_none()
        x = None if var_node is None else var_node.array
    if x is not None:
        x = numpy.asarray(cuda.to_cpu(x), numpy.float64)
        return x.mean(axis=axes).astype(dtype), x.var(axis=axes).astype(dtype)
    # The input is gone: the statistics the function kept (inv_std = 1 / sqrt(var + eps)).
    param_shape = tuple(func.inputs[1].shape)
    mean = numpy.asarray(cuda.to_cpu(func.mean), numpy.float64).reshape(param_shape)
    inv_std = numpy.asarray(cuda.to_cpu(func.inv_std), numpy.float64).reshape(param_shape)
    return mean.astype(dtype), (1.0 / inv_std**2 - func.eps).astype(dtype)


def convert_BatchNormalization(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    # Training mode normalizes with the statistics of the batch: they are exported as
    # the running statistics of an inference BatchNormalization (named after the link,
    # param_<link>_avg_mean, when the function belongs to one).
    x, gamma, beta = input_names
    mean, var = _batch_statistics(func, _reduced_axes(func))
    prefix = _link_prefix(func, context)
    mean_name = _add_statistic(func, mean, "avg_mean", prefix, context)
    var_name = _add_statistic(func, var, "avg_var", prefix, context)
    return _normalize(func, opset_version, x, gamma, beta, mean_name, var_name, output_names, context)


def convert_FixedBatchNormalization(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    x, gamma, beta, mean, var = input_names
    # Statistics given as plain arrays (not a link's, not inputs of the graph) are named
    # after the function: <function>_param_avg_mean.
    prefix = _link_prefix(func, context)
    if mean in context.implicit_inputs:
        mean = _add_statistic(func, context.value_of(mean), "avg_mean", prefix, context)
    if var in context.implicit_inputs:
        var = _add_statistic(func, context.value_of(var), "avg_var", prefix, context)
    return _normalize(func, opset_version, x, gamma, beta, mean, var, output_names, context)


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
