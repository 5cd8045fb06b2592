"""Converters of activation functions."""

from __future__ import annotations

from typing import Any

from onnx_chainer import onnx_helper
from onnx_chainer.converters import _common as C


def _unary(op: str, **attrs: Any) -> Any:
    def convert(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
        return onnx_helper.make_node(op, input_names[:1], output_names, **attrs)

    convert.__name__ = f"convert_{op}"
    return convert


def convert_LeakyReLU(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    return onnx_helper.make_node("LeakyRelu", input_names, output_names, alpha=float(func.slope))


def convert_ELU(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return onnx_helper.make_node("Elu", input_names, output_names, alpha=float(func.alpha))


def convert_ClippedReLU(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    dtype = func.inputs[0].dtype
    return _clip(input_names[0], 0.0, float(func.cap), dtype, opset_version, output_names, context)


def _clip(
    x: str, low: float | None, high: float | None, dtype: Any, opset_version: int, out: list[str], context: Any
) -> Any:
    if opset_version < 11:
        attrs = {}
        if low is not None:
            attrs["min"] = float(low)
        if high is not None:
            attrs["max"] = float(high)
        return onnx_helper.make_node("Clip", [x], out, **attrs)
    inputs = [x, "" if low is None else C.const(context, low, "min", dtype)]
    if high is not None:
        inputs.append(C.const(context, high, "max", dtype))
    return onnx_helper.make_node("Clip", inputs, out)


def _softmax(op: str) -> Any:
    def convert(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
        ndim = len(func.inputs[0].shape)
        axis = C.normalize_axis(func.axis, ndim)
        if opset_version >= 13 or axis == ndim - 1:
            return onnx_helper.make_node(op, input_names, output_names, axis=axis)
        # Before opset 13 Softmax flattens the axes from `axis` on: move the axis last.
        perm = [i for i in range(ndim) if i != axis] + [axis]
        inverse = [perm.index(i) for i in range(ndim)]
        gb = onnx_helper.GraphBuilder()
        h = gb.op("Transpose", input_names, perm=perm)
        h = gb.op(op, [h], axis=ndim - 1)
        gb.op("Transpose", [h], perm=inverse)
        return gb.nodes(output_names)

    convert.__name__ = f"convert_{op}"
    return convert


def convert_HardSigmoid(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    return onnx_helper.make_node("HardSigmoid", input_names, output_names, alpha=0.2, beta=0.5)


def convert_Softplus(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    beta = float(func.beta)
    if beta == 1.0:
        return onnx_helper.make_node("Softplus", input_names, output_names)
    dtype = func.inputs[0].dtype
    gb = onnx_helper.GraphBuilder()
    h = gb.op("Mul", [input_names[0], C.const(context, beta, "beta", dtype)])
    h = gb.op("Softplus", [h])
    gb.op("Div", [h, C.const(context, beta, "beta", dtype)])
    return gb.nodes(output_names)


def convert_PReLUFunction(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    # Chainer's W covers the axes 1..W.ndim of x; ONNX broadcasts from the right, so W
    # gets trailing singleton axes.
    x_ndim = len(func.inputs[0].shape)
    w_shape = tuple(func.inputs[1].shape)
    gb = onnx_helper.GraphBuilder()
    shape = w_shape + (1,) * (x_ndim - 1 - len(w_shape))
    w = gb.op("Reshape", [input_names[1], C.int64s(context, shape, "shape")])
    gb.op("PRelu", [input_names[0], w])
    return gb.nodes(output_names)


def convert_Swish(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    # y = x * sigmoid(beta * x), beta broadcast like PReLU's W.
    x_ndim = len(func.inputs[0].shape)
    b_shape = tuple(func.inputs[1].shape)
    gb = onnx_helper.GraphBuilder()
    beta = gb.op("Reshape", [input_names[1], C.int64s(context, b_shape + (1,) * (x_ndim - 1 - len(b_shape)), "shape")])
    h = gb.op("Mul", [input_names[0], beta])
    h = gb.op("Sigmoid", [h])
    gb.op("Mul", [input_names[0], h])
    return gb.nodes(output_names)


CONVERTERS = {
    "ReLU": _unary("Relu"),
    "Sigmoid": _unary("Sigmoid"),
    "Tanh": _unary("Tanh"),
    "LeakyReLU": convert_LeakyReLU,
    "ELU": convert_ELU,
    "ClippedReLU": convert_ClippedReLU,
    "Softmax": _softmax("Softmax"),
    "LogSoftmax": _softmax("LogSoftmax"),
    "HardSigmoid": convert_HardSigmoid,
    "Softplus": convert_Softplus,
    "PReLUFunction": convert_PReLUFunction,
    "Swish": convert_Swish,
}

clip = _clip
