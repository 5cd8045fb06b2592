"""Converters of pooling functions."""

from __future__ import annotations

from typing import Any

import numpy

from onnx_chainer import onnx_helper
from onnx_chainer.converters import _common as C


def convert_MaxPoolingND(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    if len(output_names) != 1:
        raise C.unsupported(func, "return_indices=True")
    pads = list(func.pad)
    end = list(func.pad)
    attrs: dict[str, Any] = {}
    if func.cover_all:
        if opset_version >= 10:
            # cover_all is ceil mode: out = ceil((in + 2p - k) / s) + 1.
            attrs["ceil_mode"] = 1
        else:
            # The extra windows of cover_all read only padding, which max pooling ignores.
            end = [p + s - 1 for p, s in zip(end, func.stride)]
    return onnx_helper.make_node(
        "MaxPool",
        input_names,
        output_names,
        kernel_shape=list(func.ksize),
        strides=list(func.stride),
        pads=pads + end,
        **attrs,
    )


def convert_AveragePoolingND(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    # pad_value 0 (the 2-D function): padded elements count as zeros in every window;
    # pad_value None: windows are averaged over the elements inside the input only.
    include_pad = func.pad_value is not None
    if include_pad and float(func.pad_value) != 0.0:
        raise C.unsupported(func, f"pad_value={func.pad_value}")
    return onnx_helper.make_node(
        "AveragePool",
        input_names,
        output_names,
        kernel_shape=list(func.ksize),
        strides=list(func.stride),
        pads=list(func.pad) * 2,
        count_include_pad=int(include_pad),
    )


def convert_UnpoolingND(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    # Unpooling spreads every input value over its window and sums overlaps: a
    # depthwise transposed convolution with a kernel of ones.
    x_shape = tuple(func.inputs[0].shape)
    out = func.outputs[0]()
    out_spatial = tuple(out.shape[2:]) if out is not None else tuple(func.outsize)
    channels = x_shape[1]
    kernel = numpy.ones((channels, 1, *func.ksize), dtype=func.inputs[0].dtype)
    w = context.add_const(kernel, "kernel")
    pads_end, output_padding = [], []
    for n, k, s, p, o in zip(x_shape[2:], func.ksize, func.stride, func.pad, out_spatial):
        end = s * (n - 1) + k - p - o
        pads_end.append(max(end, 0))
        output_padding.append(max(-end, 0))
    attrs: dict[str, Any] = {}
    if any(output_padding):
        attrs["output_padding"] = output_padding
    return onnx_helper.make_node(
        "ConvTranspose",
        [input_names[0], w],
        output_names,
        kernel_shape=list(func.ksize),
        strides=list(func.stride),
        pads=list(func.pad) + pads_end,
        group=channels,
        **attrs,
    )


CONVERTERS = {
    "MaxPooling2D": convert_MaxPoolingND,
    "MaxPoolingND": convert_MaxPoolingND,
    "AveragePooling2D": convert_AveragePoolingND,
    "AveragePoolingND": convert_AveragePoolingND,
    "Unpooling2D": convert_UnpoolingND,
    "UnpoolingND": convert_UnpoolingND,
}
