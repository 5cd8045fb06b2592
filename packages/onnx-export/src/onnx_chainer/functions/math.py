"""Converters of mathematical functions (``chainer.functions.math``: arithmetic,
elementwise functions, reductions, matrix products)."""

from __future__ import annotations

from typing import Any

import numpy

from onnx_chainer import onnx_helper
from onnx_chainer.functions import _common as C

__all__ = [
    "convert_Absolute",
    "convert_Add",
    "convert_AddConstant",
    "convert_Arccos",
    "convert_Arcsin",
    "convert_Arctan",
    "convert_Arctanh",
    "convert_ArgMax",
    "convert_ArgMin",
    "convert_Bias",
    "convert_Ceil",
    "convert_Clip",
    "convert_Cos",
    "convert_Cosh",
    "convert_Div",
    "convert_DivByConstant",
    "convert_DivFromConstant",
    "convert_Erf",
    "convert_Exp",
    "convert_Expm1",
    "convert_Floor",
    "convert_Identity",
    "convert_LinearInterpolate",
    "convert_Log",
    "convert_Log1p",
    "convert_LogSumExp",
    "convert_MatMul",
    "convert_Max",
    "convert_Maximum",
    "convert_Mean",
    "convert_Min",
    "convert_Minimum",
    "convert_Mul",
    "convert_MulConstant",
    "convert_Neg",
    "convert_PowConstVar",
    "convert_PowVarConst",
    "convert_PowVarVar",
    "convert_Prod",
    "convert_Rsqrt",
    "convert_RsqrtGPU",
    "convert_Scale",
    "convert_Sign",
    "convert_Sin",
    "convert_Sinh",
    "convert_Sqrt",
    "convert_Square",
    "convert_SquaredDifference",
    "convert_Sub",
    "convert_SubFromConstant",
    "convert_Sum",
    "convert_Tan",
]


def _elementwise(
    op: str, func: Any, opset_version: int, input_names: list[str], output_names: list[str], minimum: int = 1
) -> Any:
    C.require_opset(func, opset_version, minimum, f"ONNX {op}")
    return onnx_helper.make_node(op, input_names, output_names)


def _with_constant(
    op: str, constant_first: bool, func: Any, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    """``x (op) c`` or ``c (op) x`` for the *Constant functions (``func.value``)."""
    value = numpy.asarray(func.value, dtype=func.inputs[0].dtype)
    c = context.add_const(value, "value")
    inputs = [c, input_names[0]] if constant_first else [input_names[0], c]
    return onnx_helper.make_node(op, inputs, output_names)


def _axes(func: Any) -> list[int] | None:
    axis = getattr(func, "axis", None)
    if axis is None:
        return None
    ndim = len(func.inputs[0].shape)
    if isinstance(axis, (int, numpy.integer)):
        axis = (axis,)
    return [C.normalize_axis(int(a), ndim) for a in axis]


def _reduce(
    op: str, func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    keepdims = bool(getattr(func, "keepdims", False))
    gb = onnx_helper.GraphBuilder()
    C.reduce(gb, op, input_names[0], _axes(func), keepdims, opset_version, context, out=output_names)
    return gb.nodes()


def convert_Add(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return _elementwise("Add", func, opset_version, input_names, output_names)


def convert_Sub(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return _elementwise("Sub", func, opset_version, input_names, output_names)


def convert_Mul(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return _elementwise("Mul", func, opset_version, input_names, output_names)


def convert_Div(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return _elementwise("Div", func, opset_version, input_names, output_names)


def convert_PowVarVar(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    return _elementwise("Pow", func, opset_version, input_names, output_names)


def convert_Maximum(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    return _elementwise("Max", func, opset_version, input_names, output_names)


def convert_Minimum(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    return _elementwise("Min", func, opset_version, input_names, output_names)


def convert_Neg(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return _elementwise("Neg", func, opset_version, input_names, output_names)


def convert_Absolute(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    return _elementwise("Abs", func, opset_version, input_names, output_names)


def convert_Exp(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return _elementwise("Exp", func, opset_version, input_names, output_names)


def convert_Log(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return _elementwise("Log", func, opset_version, input_names, output_names)


def convert_Sqrt(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return _elementwise("Sqrt", func, opset_version, input_names, output_names)


def convert_Sin(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return _elementwise("Sin", func, opset_version, input_names, output_names)


def convert_Cos(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return _elementwise("Cos", func, opset_version, input_names, output_names)


def convert_Tan(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return _elementwise("Tan", func, opset_version, input_names, output_names)


def convert_Arcsin(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return _elementwise("Asin", func, opset_version, input_names, output_names)


def convert_Arccos(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return _elementwise("Acos", func, opset_version, input_names, output_names)


def convert_Arctan(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return _elementwise("Atan", func, opset_version, input_names, output_names)


def convert_Sinh(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return _elementwise("Sinh", func, opset_version, input_names, output_names, minimum=9)


def convert_Cosh(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return _elementwise("Cosh", func, opset_version, input_names, output_names, minimum=9)


def convert_Arctanh(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    return _elementwise("Atanh", func, opset_version, input_names, output_names, minimum=9)


def convert_Erf(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return _elementwise("Erf", func, opset_version, input_names, output_names, minimum=9)


def convert_Sign(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return _elementwise("Sign", func, opset_version, input_names, output_names, minimum=9)


def convert_Floor(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return _elementwise("Floor", func, opset_version, input_names, output_names)


def convert_Ceil(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return _elementwise("Ceil", func, opset_version, input_names, output_names)


def convert_AddConstant(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    return _with_constant("Add", False, func, input_names, output_names, context)


def convert_SubFromConstant(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    return _with_constant("Sub", True, func, input_names, output_names, context)


def convert_MulConstant(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    return _with_constant("Mul", False, func, input_names, output_names, context)


def convert_DivByConstant(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    return _with_constant("Div", False, func, input_names, output_names, context)


def convert_DivFromConstant(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    return _with_constant("Div", True, func, input_names, output_names, context)


def convert_PowVarConst(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    return _with_constant("Pow", False, func, input_names, output_names, context)


def convert_PowConstVar(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    return _with_constant("Pow", True, func, input_names, output_names, context)


def convert_Sum(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return _reduce("ReduceSum", func, opset_version, input_names, output_names, context)


def convert_Max(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return _reduce("ReduceMax", func, opset_version, input_names, output_names, context)


def convert_Min(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return _reduce("ReduceMin", func, opset_version, input_names, output_names, context)


def convert_Prod(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return _reduce("ReduceProd", func, opset_version, input_names, output_names, context)


def convert_Mean(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return _reduce("ReduceMean", func, opset_version, input_names, output_names, context)


def convert_Rsqrt(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    gb = onnx_helper.GraphBuilder()
    gb.op("Reciprocal", [gb.op("Sqrt", input_names)])
    return gb.nodes(output_names)


def convert_RsqrtGPU(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    return convert_Rsqrt(func, opset_version, input_names, output_names, context)


def convert_Square(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return onnx_helper.make_node("Mul", [input_names[0], input_names[0]], output_names)


def convert_Log1p(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    gb = onnx_helper.GraphBuilder()
    one = C.const(context, 1, "one", func.inputs[0].dtype)
    gb.op("Log", [gb.op("Add", [input_names[0], one])])
    return gb.nodes(output_names)


def convert_Expm1(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    gb = onnx_helper.GraphBuilder()
    one = C.const(context, 1, "one", func.inputs[0].dtype)
    gb.op("Sub", [gb.op("Exp", input_names), one])
    return gb.nodes(output_names)


def convert_LogSumExp(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    gb = onnx_helper.GraphBuilder()
    C.reduce(gb, "ReduceLogSumExp", input_names[0], _axes(func), False, opset_version, context, out=output_names)
    return gb.nodes()


def _argminmax_nodes(
    op_name: str, func: Any, input_names: list[str], output_names: list[str], context: Any
) -> list[Any]:
    """``ArgMax`` / ``ArgMin`` along ``func.axis`` (of the flattened input for ``None``),
    cast to the dtype of the Chainer output (int32)."""
    gb = onnx_helper.GraphBuilder()
    x = input_names[0]
    axis = func.axis
    if axis is None:
        x = gb.op("Reshape", [x, C.int64s(context, [-1], "shape")])
        axis = 0
    axis = C.normalize_axis(int(axis), len(func.inputs[0].shape))
    h = gb.op(op_name, [x], axis=axis, keepdims=0)
    out = func.outputs[0]()
    dtype = out.dtype if out is not None else numpy.int32
    gb.op("Cast", [h], to=C.onnx_dtype(dtype))
    return gb.nodes(output_names)


def convert_ArgMax(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return _argminmax_nodes("ArgMax", func, input_names, output_names, context)


def convert_ArgMin(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return _argminmax_nodes("ArgMin", func, input_names, output_names, context)


def convert_MatMul(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    gb = onnx_helper.GraphBuilder()
    names = []
    for name, node, trans in zip(input_names, func.inputs, (func.transa, func.transb)):
        ndim = len(node.shape)
        if trans and ndim >= 2:
            perm = list(range(ndim - 2)) + [ndim - 1, ndim - 2]
            name = gb.op("Transpose", [name], perm=perm)
        names.append(name)
    gb.op("MatMul", names)
    return gb.nodes(output_names)


def convert_Clip(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return C.clip(input_names[0], func.x_min, func.x_max, func.inputs[0].dtype, opset_version, output_names, context)


def convert_LinearInterpolate(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    p, x, y = input_names
    gb = onnx_helper.GraphBuilder()
    h = gb.op("Mul", [p, gb.op("Sub", [x, y])])
    gb.op("Add", [h, y])
    return gb.nodes(output_names)


def convert_SquaredDifference(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    gb = onnx_helper.GraphBuilder()
    d = gb.op("Sub", input_names)
    gb.op("Mul", [d, d])
    return gb.nodes(output_names)


def _axis_broadcast(op: str, func: Any, input_names: list[str], output_names: list[str], context: Any) -> Any:
    """F.bias / F.scale: ``y`` covers the axes ``axis .. axis + y.ndim`` of ``x``."""
    x_ndim = len(func.inputs[0].shape)
    y_shape = tuple(func.inputs[1].shape)
    axis = C.normalize_axis(func.axis, x_ndim)
    shape = y_shape + (1,) * (x_ndim - axis - len(y_shape))
    gb = onnx_helper.GraphBuilder()
    y = gb.op("Reshape", [input_names[1], C.int64s(context, shape, "shape")])
    gb.op(op, [input_names[0], y])
    return gb.nodes(output_names)


def convert_Bias(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return _axis_broadcast("Add", func, input_names, output_names, context)


def convert_Scale(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return _axis_broadcast("Mul", func, input_names, output_names, context)


def convert_Identity(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    return [onnx_helper.make_node("Identity", [i], [o]) for i, o in zip(input_names, output_names)]
