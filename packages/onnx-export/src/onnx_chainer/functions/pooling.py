"""Converters of pooling functions (``chainer.functions.pooling``)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy

from onnx_chainer import onnx_helper
from onnx_chainer.functions import _common as C

__all__ = [
    "convert_AveragePooling2D",
    "convert_AveragePoolingND",
    "convert_MaxPooling2D",
    "convert_MaxPoolingND",
    "convert_ROIPooling2D",
    "convert_Unpooling2D",
    "convert_UnpoolingND",
]


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


def convert_MaxPooling2D(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    return convert_MaxPoolingND(func, opset_version, input_names, output_names, context)


def convert_AveragePooling2D(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    return convert_AveragePoolingND(func, opset_version, input_names, output_names, context)


def convert_Unpooling2D(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    return convert_UnpoolingND(func, opset_version, input_names, output_names, context)


def _round_half_away(gb: onnx_helper.GraphBuilder, v: str, half: str) -> str:
    """``sign(v) * floor(|v| + 0.5)`` (ONNX Round rounds halves to even)."""
    return gb.op("Mul", [gb.op("Sign", [v]), gb.op("Floor", [gb.op("Add", [gb.op("Abs", [v]), half])])])


def _roi_bins(
    gb: onnx_helper.GraphBuilder,
    start: str,
    end: str,
    n_bins: int,
    size: int,
    dtype: Any,
    opset_version: int,
    context: Any,
) -> tuple[str, str, str]:
    """Bins of the boxes along one axis: ``(mask (R, n_bins, size), low, high)``.

    Bin ``i`` of a box from ``start`` to ``end`` (inclusive, at least one pixel) covers
    ``floor(i * length / n_bins) .. ceil((i + 1) * length / n_bins)`` (exclusive) from
    ``start``, clipped to ``[0, size]``.
    """
    one = C.const(context, 1, "one", dtype)
    length = gb.op("Max", [gb.op("Add", [gb.op("Sub", [end, start]), one]), one])
    step = gb.op("Div", [length, C.const(context, n_bins, "n_bins", dtype)])
    index = C.const(context, numpy.arange(n_bins)[None], "bin_index", dtype)
    zero, limit = C.const(context, 0, "zero", dtype), C.const(context, size, "size", dtype)

    def edge(offset: str, rounding: str) -> str:
        h = gb.op(rounding, [gb.op("Mul", [gb.op("Add", [index, offset]), step])])
        return gb.op("Min", [gb.op("Max", [gb.op("Add", [h, start]), zero]), limit])

    low = edge(C.const(context, 0, "zero_offset", dtype), "Floor")
    high = edge(one, "Ceil")
    pixels = C.const(context, numpy.arange(size)[None, None], "pixels", dtype)
    unsqueezed_low = C.unsqueeze(gb, low, [2], opset_version, context)
    unsqueezed_high = C.unsqueeze(gb, high, [2], opset_version, context)
    inside = gb.op(
        "And", [gb.op("Not", [gb.op("Less", [pixels, unsqueezed_low])]), gb.op("Less", [pixels, unsqueezed_high])]
    )
    return inside, low, high


def _roi_max_pool_decomposed(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    """Max pooling of the boxes with elementary operators: the bins as masks over the
    image, the maximum of the masked image per bin, zero for an empty bin."""
    x, rois = input_names[:2]
    _, _, height, width = func.inputs[0].shape
    outh, outw = int(func.outh), int(func.outw)
    dtype = func.inputs[0].dtype
    gb = onnx_helper.GraphBuilder()
    column = [C.int64s(context, [i], f"column{i}") for i in range(5)]
    batch = gb.op("Cast", [gb.op("Gather", [rois, column[0]], axis=1)], to=C.onnx_dtype(numpy.int64))
    scale = C.const(context, func.spatial_scale, "spatial_scale", dtype)
    half = C.const(context, 0.5, "half", dtype)
    x1, y1, x2, y2 = (
        _round_half_away(gb, gb.op("Mul", [gb.op("Gather", [rois, column[i]], axis=1), scale]), half)
        for i in (1, 2, 3, 4)
    )
    mask_h, low_h, high_h = _roi_bins(gb, y1, y2, outh, height, dtype, opset_version, context)
    mask_w, low_w, high_w = _roi_bins(gb, x1, x2, outw, width, dtype, opset_version, context)
    # (R, outh, outw, H, W): pixel (h, w) is in bin (i, j).
    mask = gb.op(
        "And",
        [
            C.unsqueeze(gb, mask_h, [2, 4], opset_version, context),
            C.unsqueeze(gb, mask_w, [1, 3], opset_version, context),
        ],
    )
    mask = C.unsqueeze(gb, mask, [1], opset_version, context)
    images = C.unsqueeze(
        gb,
        gb.op("Gather", [x, C.squeeze(gb, batch, [1], opset_version, context)], axis=0),
        [2, 3],
        opset_version,
        context,
    )
    lowest = C.const(context, numpy.finfo(dtype).min, "lowest", dtype)
    pooled = C.reduce(gb, "ReduceMax", gb.op("Where", [mask, images, lowest]), [4, 5], False, opset_version, context)
    nonempty = gb.op(
        "And",
        [
            C.unsqueeze(gb, gb.op("Less", [low_h, high_h]), [2], opset_version, context),
            C.unsqueeze(gb, gb.op("Less", [low_w, high_w]), [1], opset_version, context),
        ],
    )
    nonempty = C.unsqueeze(gb, nonempty, [1], opset_version, context)
    gb.op("Where", [nonempty, pooled, C.const(context, 0, "zero_value", dtype)])
    return gb.nodes(output_names)


def convert_ROIPooling2D(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    # F.roi_pooling_2d as one node (onnx_chainer.mapping.patch_functions): inputs x and
    # the boxes, attributes outh, outw and spatial_scale.
    if opset_version >= 22:
        # MaxRoiPool-22 (bfloat16 added) has no implementation in onnxruntime: the same
        # computation with elementary operators, whose rounding is Chainer's.
        return _roi_max_pool_decomposed(func, opset_version, input_names, output_names, context)
    warnings.warn(
        f"onnx_chainer: {C.func_label(func)} ({onnx_helper.get_func_name()}) is exported as ONNX MaxRoiPool, "
        "whose specification leaves the rounding of box corners and bin edges to the runtime; results can "
        "differ from Chainer's where a runtime rounds otherwise",
        UserWarning,
        stacklevel=2,
    )
    return onnx_helper.make_node(
        "MaxRoiPool",
        input_names[:2],
        output_names,
        pooled_shape=[int(func.outh), int(func.outw)],
        spatial_scale=float(func.spatial_scale),
    )
