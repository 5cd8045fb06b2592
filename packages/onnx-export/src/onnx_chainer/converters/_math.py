"""Converters of mathematical functions (arithmetic, elementwise, reductions, matmul)."""

from __future__ import annotations

from typing import Any

import numpy

from onnx_chainer import onnx_helper
from onnx_chainer.converters import _activation
from onnx_chainer.converters import _common as C


def _simple(op: str, min_opset: int = 1, n_inputs: int | None = None) -> Any:
    def convert(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
        C.require_opset(func, opset_version, min_opset, f"ONNX {op}")
        inputs = input_names if n_inputs is None else input_names[:n_inputs]
        return onnx_helper.make_node(op, inputs, output_names)

    convert.__name__ = f"convert_{op}"
    return convert


def _with_constant(op: str, constant_first: bool) -> Any:
    """``x (op) c`` or ``c (op) x`` for the *Constant functions (``func.value``)."""

    def convert(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
        value = numpy.asarray(func.value, dtype=func.inputs[0].dtype)
        c = context.add_const(value, "value")
        inputs = [c, input_names[0]] if constant_first else [input_names[0], c]
        return onnx_helper.make_node(op, inputs, output_names)

    convert.__name__ = f"convert_{op}_constant"
    return convert


def _composite(*ops: str) -> Any:
    """A chain of unary ops."""

    def convert(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
        gb = onnx_helper.GraphBuilder()
        h = input_names[0]
        for op in ops:
            h = gb.op(op, [h])
        return gb.nodes(output_names)

    return convert


def convert_Square(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return onnx_helper.make_node("Mul", [input_names[0], input_names[0]], output_names)


def _plus_one(op_first: str | None, op_then: str | None, sign: float) -> Any:
    # log1p(x) = Log(x + 1); expm1(x) = Exp(x) - 1.
    def convert(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
        gb = onnx_helper.GraphBuilder()
        one = C.const(context, 1, "one", func.inputs[0].dtype)
        h = input_names[0]
        if op_first is not None:
            h = gb.op(op_first, [h])
        h = gb.op("Add" if sign > 0 else "Sub", [h, one])
        if op_then is not None:
            h = gb.op(op_then, [h])
        return gb.nodes(output_names)

    return convert


def _axes(func: Any) -> list[int] | None:
    axis = func.axis
    if axis is None:
        return None
    ndim = len(func.inputs[0].shape)
    if isinstance(axis, (int, numpy.integer)):
        axis = (axis,)
    return [C.normalize_axis(int(a), ndim) for a in axis]


def _reduction(op: str, keepdims_attr: bool = True) -> Any:
    def convert(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
        keepdims = bool(getattr(func, "keepdims", False)) if keepdims_attr else False
        gb = onnx_helper.GraphBuilder()
        C.reduce(gb, op, input_names[0], _axes(func), keepdims, opset_version, context, out=output_names)
        return gb.nodes()

    convert.__name__ = f"convert_{op}"
    return convert


def _arg_reduction(op: str) -> Any:
    def convert(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
        gb = onnx_helper.GraphBuilder()
        x = input_names[0]
        axis = func.axis
        if axis is None:
            x = gb.op("Reshape", [x, C.int64s(context, [-1], "shape")])
            axis = 0
        axis = C.normalize_axis(int(axis), len(func.inputs[0].shape))
        h = gb.op(op, [x], axis=axis, keepdims=0)
        out = func.outputs[0]()
        dtype = out.dtype if out is not None else numpy.int32
        gb.op("Cast", [h], to=C.onnx_dtype(dtype))
        return gb.nodes(output_names)

    return convert


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
    return _activation.clip(
        input_names[0], func.x_min, func.x_max, func.inputs[0].dtype, opset_version, output_names, context
    )


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


def _axis_broadcast(op: str) -> Any:
    """F.bias / F.scale: ``y`` covers the axes ``axis .. axis + y.ndim`` of ``x``."""

    def convert(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
        x_ndim = len(func.inputs[0].shape)
        y_shape = tuple(func.inputs[1].shape)
        axis = C.normalize_axis(func.axis, x_ndim)
        shape = y_shape + (1,) * (x_ndim - axis - len(y_shape))
        gb = onnx_helper.GraphBuilder()
        y = gb.op("Reshape", [input_names[1], C.int64s(context, shape, "shape")])
        gb.op(op, [input_names[0], y])
        return gb.nodes(output_names)

    return convert


def convert_Identity(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    return [onnx_helper.make_node("Identity", [i], [o]) for i, o in zip(input_names, output_names)]


CONVERTERS = {
    "Add": _simple("Add"),
    "Sub": _simple("Sub"),
    "Mul": _simple("Mul"),
    "Div": _simple("Div"),
    "PowVarVar": _simple("Pow"),
    "Maximum": _simple("Max"),
    "Minimum": _simple("Min"),
    "Neg": _simple("Neg"),
    "Absolute": _simple("Abs"),
    "Exp": _simple("Exp"),
    "Log": _simple("Log"),
    "Sqrt": _simple("Sqrt"),
    "Rsqrt": _composite("Sqrt", "Reciprocal"),
    "Square": convert_Square,
    "Sin": _simple("Sin", 7),
    "Cos": _simple("Cos", 7),
    "Tan": _simple("Tan", 7),
    "Arcsin": _simple("Asin", 7),
    "Arccos": _simple("Acos", 7),
    "Arctan": _simple("Atan", 7),
    "Sinh": _simple("Sinh", 9),
    "Cosh": _simple("Cosh", 9),
    "Arctanh": _simple("Atanh", 9),
    "Erf": _simple("Erf", 9),
    "Sign": _simple("Sign", 9),
    "Floor": _simple("Floor"),
    "Ceil": _simple("Ceil"),
    "Log1p": _plus_one(None, "Log", 1.0),
    "Expm1": _plus_one("Exp", None, -1.0),
    "AddConstant": _with_constant("Add", False),
    "SubFromConstant": _with_constant("Sub", True),
    "MulConstant": _with_constant("Mul", False),
    "DivByConstant": _with_constant("Div", False),
    "DivFromConstant": _with_constant("Div", True),
    "PowVarConst": _with_constant("Pow", False),
    "PowConstVar": _with_constant("Pow", True),
    "Sum": _reduction("ReduceSum"),
    # F.average without weights records one Mean node (as in Chainer 7).
    "Mean": _reduction("ReduceMean"),
    "Max": _reduction("ReduceMax"),
    "Min": _reduction("ReduceMin"),
    "Prod": _reduction("ReduceProd"),
    "LogSumExp": _reduction("ReduceLogSumExp", keepdims_attr=False),
    "ArgMax": _arg_reduction("ArgMax"),
    "ArgMin": _arg_reduction("ArgMin"),
    "MatMul": convert_MatMul,
    "Clip": convert_Clip,
    "LinearInterpolate": convert_LinearInterpolate,
    "SquaredDifference": convert_SquaredDifference,
    "Bias": _axis_broadcast("Add"),
    "Scale": _axis_broadcast("Mul"),
    "Identity": convert_Identity,
}
