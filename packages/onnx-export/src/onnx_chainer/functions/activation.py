"""Converters of activation functions (``chainer.functions.activation``)."""

from __future__ import annotations

from typing import Any

from onnx_chainer import onnx_helper
from onnx_chainer.functions import _common as C

__all__ = [
    "convert_ClippedReLU",
    "convert_ELU",
    "convert_HardSigmoid",
    "convert_LeakyReLU",
    "convert_LogSoftmax",
    "convert_PReLUFunction",
    "convert_ReLU",
    "convert_Sigmoid",
    "convert_Softmax",
    "convert_Softplus",
    "convert_Swish",
    "convert_Tanh",
]


def convert_ReLU(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return onnx_helper.make_node("Relu", input_names, output_names)


def convert_Sigmoid(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    return onnx_helper.make_node("Sigmoid", input_names, output_names)


def convert_Tanh(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return onnx_helper.make_node("Tanh", input_names, output_names)


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
    return C.clip(input_names[0], 0.0, float(func.cap), dtype, opset_version, output_names, context)


def _convert_softmax_impl(
    op_type: str, func: Any, input_names: list[str], output_names: list[str], opset_version: int = 13
) -> Any:
    """``Softmax`` / ``LogSoftmax`` along ``func.axis``."""
    ndim = len(func.inputs[0].shape)
    axis = C.normalize_axis(func.axis, ndim)
    if opset_version >= 13 or axis == ndim - 1:
        return onnx_helper.make_node(op_type, input_names, output_names, axis=axis)
    # Before opset 13 Softmax flattens the axes from `axis` on: move the axis last.
    perm = [i for i in range(ndim) if i != axis] + [axis]
    inverse = [perm.index(i) for i in range(ndim)]
    gb = onnx_helper.GraphBuilder()
    h = gb.op("Transpose", input_names, perm=perm)
    h = gb.op(op_type, [h], axis=ndim - 1)
    gb.op("Transpose", [h], perm=inverse)
    return gb.nodes(output_names)


def convert_Softmax(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    return _convert_softmax_impl("Softmax", func, input_names, output_names, opset_version)


def convert_LogSoftmax(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    return _convert_softmax_impl("LogSoftmax", func, input_names, output_names, opset_version)


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
