"""Converters of connection functions (``chainer.functions.connection``: linear,
convolution, deconvolution, embedding)."""

from __future__ import annotations

from typing import Any

from onnx_chainer import onnx_helper
from onnx_chainer.functions import _common as C

__all__ = [
    "convert_Convolution2DFunction",
    "convert_ConvolutionND",
    "convert_Deconvolution2DFunction",
    "convert_DeconvolutionND",
    "convert_EmbedIDFunction",
    "convert_LinearFunction",
]


def convert_LinearFunction(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    # y = x W^T + b with W of shape (out, in).
    if len(input_names) == 3 or opset_version >= 11:
        return onnx_helper.make_node("Gemm", input_names, output_names, transB=1)
    gb = onnx_helper.GraphBuilder()
    wt = gb.op("Transpose", [input_names[1]], perm=[1, 0])
    gb.op("MatMul", [input_names[0], wt])
    return gb.nodes(output_names)


def _end_pads(func: Any, in_spatial: tuple[int, ...], ksize: tuple[int, ...]) -> list[int]:
    pads = list(func.pad)
    if getattr(func, "cover_all", False):
        # cover_all adds windows until the input is covered: as many as extra zero
        # padding of stride - 1 at the end gives.
        pads = [p + s - 1 for p, s in zip(pads, func.stride)]
    return pads


def convert_ConvolutionND(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    x_shape = tuple(func.inputs[0].shape)
    ksize = tuple(func.inputs[1].shape[2:])
    pads = list(func.pad) + _end_pads(func, x_shape[2:], ksize)
    return onnx_helper.make_node(
        "Conv",
        input_names,
        output_names,
        kernel_shape=list(ksize),
        strides=list(func.stride),
        pads=pads,
        dilations=list(func.dilate),
        group=int(func.groups),
    )


def convert_DeconvolutionND(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    x_shape = tuple(func.inputs[0].shape)
    ksize = tuple(func.inputs[1].shape[2:])
    out = func.outputs[0]()
    out_spatial = tuple(out.shape[2:]) if out is not None else tuple(func.outsize)
    # ONNX: out = s (in - 1) + d (k - 1) + 1 + output_padding - pad_begin - pad_end.
    pads_begin = list(func.pad)
    pads_end = []
    output_padding = []
    for n, k, s, p, d, o in zip(x_shape[2:], ksize, func.stride, func.pad, func.dilate, out_spatial):
        full = s * (n - 1) + d * (k - 1) + 1
        end = full - p - o
        if end >= 0:
            pads_end.append(end)
            output_padding.append(0)
        else:
            pads_end.append(0)
            output_padding.append(-end)
    attrs: dict[str, Any] = {
        "kernel_shape": list(ksize),
        "strides": list(func.stride),
        "pads": pads_begin + pads_end,
        "dilations": list(func.dilate),
        "group": int(func.groups),
    }
    if any(output_padding):
        attrs["output_padding"] = output_padding
    return onnx_helper.make_node("ConvTranspose", input_names, output_names, **attrs)


def convert_EmbedIDFunction(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    if func.ignore_label is not None:
        raise C.unsupported(func, f"ignore_label={func.ignore_label}")
    # Chainer calls embed_id(x, W): ids first, weights second.
    return onnx_helper.make_node("Gather", [input_names[1], input_names[0]], output_names, axis=0)


def convert_Convolution2DFunction(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    return convert_ConvolutionND(func, opset_version, input_names, output_names, context)


def convert_Deconvolution2DFunction(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    return convert_DeconvolutionND(func, opset_version, input_names, output_names, context)
