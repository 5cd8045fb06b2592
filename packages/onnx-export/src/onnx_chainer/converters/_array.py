"""Converters of array manipulation functions.

Shapes are static in an exported graph (the recorded forward pass fixes them), so
converters use the input and output shapes recorded on the graph nodes.
"""

from __future__ import annotations

from typing import Any

import numpy

from onnx_chainer import onnx_helper
from onnx_chainer.converters import _common as C

# An end index before the first element, for slices with a negative step.
_BEFORE_START = -(2**62)


def _out_shape(func: Any, i: int = 0) -> tuple[int, ...]:
    node = func.outputs[i]()
    if node is None:
        raise C.unsupported(func, "an output that was discarded before export")
    return tuple(node.shape)


def _in_shape(func: Any, i: int = 0) -> tuple[int, ...]:
    return tuple(func.inputs[i].shape)


def convert_Reshape(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    shape = C.int64s(context, _out_shape(func), "shape")
    return onnx_helper.make_node("Reshape", [input_names[0], shape], output_names)


def _permutation(func: Any, ndim: int) -> list[int]:
    """The axis permutation an axis-moving function applied (read off distinct sizes)."""
    sizes = tuple(range(2, ndim + 2))
    moved = {
        "Swapaxes": lambda a: numpy.swapaxes(a, func.axis1, func.axis2),
        "Moveaxis": lambda a: numpy.moveaxis(a, func.source, func.destination),
        "Rollaxis": lambda a: numpy.rollaxis(a, func.axis, func.start),
    }[type(func).__name__](numpy.empty(sizes, dtype=numpy.int8))
    return [s - 2 for s in moved.shape]


def convert_Transpose(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    ndim = len(_in_shape(func))
    axes = func.axes
    perm = list(range(ndim))[::-1] if axes is None else [C.normalize_axis(int(a), ndim) for a in axes]
    return onnx_helper.make_node("Transpose", input_names, output_names, perm=perm)


def convert_axis_move(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    perm = _permutation(func, len(_in_shape(func)))
    return onnx_helper.make_node("Transpose", input_names, output_names, perm=perm)


def convert_Concat(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    axis = C.normalize_axis(func.axis, len(_in_shape(func)))
    return onnx_helper.make_node("Concat", input_names, output_names, axis=axis)


def _stack_like(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    """Stack, Hstack, Vstack, Dstack: reshape every input as NumPy does, then Concat."""
    kind = type(func).__name__
    out_ndim = len(_out_shape(func))
    gb = onnx_helper.GraphBuilder()
    names = []
    if kind == "Stack":
        axis = C.normalize_axis(func.axis, out_ndim)
        for name in input_names:
            names.append(C.unsqueeze(gb, name, [axis], opset_version, context))
    else:
        for i, name in enumerate(input_names):
            shape = _in_shape(func, i)
            if kind == "Hstack":
                target = shape if len(shape) >= 1 else (1,)
            elif kind == "Vstack":
                target = shape if len(shape) >= 2 else (1, *shape) if len(shape) == 1 else (1, 1)
            else:
                target = {0: (1, 1, 1), 1: (1, *shape, 1), 2: (*shape, 1)}.get(len(shape), shape)
            if target != shape:
                name = gb.op("Reshape", [name, C.int64s(context, target, "shape")])
            names.append(name)
        first_ndim = max(len(_in_shape(func, 0)), 1)
        axis = {"Hstack": 0 if first_ndim == 1 else 1, "Vstack": 0, "Dstack": 2}[kind]
    gb.op("Concat", names, axis=axis)
    return gb.nodes(output_names)


def convert_Squeeze(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    shape = _in_shape(func)
    if func.axis is None:
        axes = [i for i, d in enumerate(shape) if d == 1]
    else:
        axes = sorted(C.normalize_axis(int(a), len(shape)) for a in func.axis)
    gb = onnx_helper.GraphBuilder()
    C.squeeze(gb, input_names[0], axes, opset_version, context, out=output_names)
    return gb.nodes()


def convert_ExpandDims(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    axis = C.normalize_axis(func.axis, len(_out_shape(func)))
    gb = onnx_helper.GraphBuilder()
    C.unsqueeze(gb, input_names[0], [axis], opset_version, context, out=output_names)
    return gb.nodes()


def convert_BroadcastTo(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    C.require_opset(func, opset_version, 8, "ONNX Expand")
    shape = C.int64s(context, _out_shape(func), "shape")
    return onnx_helper.make_node("Expand", [input_names[0], shape], output_names)


def convert_Cast(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return onnx_helper.make_node("Cast", input_names, output_names, to=C.onnx_dtype(func.dtype))


def convert_Copy(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return onnx_helper.make_node("Identity", input_names, output_names)


def _split(gb: Any, x: str, sizes: list[int], axis: int, opset_version: int, context: Any, out: list[str]) -> None:
    if opset_version >= 13:
        gb.op_output_named("Split", [x, C.int64s(context, sizes, "split")], out, axis=axis)
    else:
        gb.op_output_named("Split", [x], out, axis=axis, split=sizes)


def convert_SplitAxis(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    axis = C.normalize_axis(func.axis, len(_in_shape(func)))
    sizes = [int(_out_shape(func, i)[axis]) for i in range(len(output_names))]
    if 0 in sizes:
        raise C.unsupported(func, "an empty section")
    gb = onnx_helper.GraphBuilder()
    _split(gb, input_names[0], sizes, axis, opset_version, context, output_names)
    return gb.nodes()


def convert_Separate(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    shape = _in_shape(func)
    axis = C.normalize_axis(func.axis, len(shape))
    gb = onnx_helper.GraphBuilder()
    parts = [gb.node_name() for _ in output_names]
    if len(parts) == 1:
        gb.op_output_named("Identity", input_names, parts)
    else:
        _split(gb, input_names[0], [1] * len(parts), axis, opset_version, context, parts)
    for part, out in zip(parts, output_names):
        C.squeeze(gb, part, [axis], opset_version, context, out=[out])
    return gb.nodes()


def convert_Tile(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    in_shape = _in_shape(func)
    out_shape = _out_shape(func)
    gb = onnx_helper.GraphBuilder()
    x = input_names[0]
    if len(out_shape) > len(in_shape):
        padded = (1,) * (len(out_shape) - len(in_shape)) + in_shape
        x = gb.op("Reshape", [x, C.int64s(context, padded, "shape")])
        in_shape = padded
    reps = [o // i if i else 1 for o, i in zip(out_shape, in_shape)]
    gb.op("Tile", [x, C.int64s(context, reps, "repeats")])
    return gb.nodes(output_names)


def convert_Repeat(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    # numpy.repeat is a gather along the axis with every index repeated.
    in_shape = _in_shape(func)
    gb = onnx_helper.GraphBuilder()
    x = input_names[0]
    axis = func.axis
    if axis is None:
        x = gb.op("Reshape", [x, C.int64s(context, [-1], "shape")])
        n, axis = int(numpy.prod(in_shape, dtype=numpy.int64)), 0
    else:
        axis = C.normalize_axis(int(axis), len(in_shape))
        n = in_shape[axis]
    repeats = numpy.asarray(func.repeats).reshape(-1)
    if repeats.size == 1:
        repeats = numpy.full(n, int(repeats[0]))
    indices = numpy.repeat(numpy.arange(n, dtype=numpy.int64), repeats)
    gb.op("Gather", [x, C.int64s(context, indices, "indices")], axis=axis)
    return gb.nodes(output_names)


def convert_Where(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    C.require_opset(func, opset_version, 9, "ONNX Where")
    return onnx_helper.make_node("Where", input_names, output_names)


def convert_Pad(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    mode = func.mode
    if mode not in ("constant", "reflect", "edge"):
        raise C.unsupported(func, f"mode={mode!r}")
    if set(func.keywords) - {"constant_values"}:
        raise C.unsupported(func, f"the numpy.pad options {sorted(func.keywords)}")
    value = func.keywords.get("constant_values", 0)
    if numpy.ndim(value) != 0:
        raise C.unsupported(func, "per-axis constant_values")
    widths = func._widths
    pads = [int(a) for a, _ in widths] + [int(b) for _, b in widths]
    if opset_version < 11:
        return onnx_helper.make_node("Pad", input_names, output_names, mode=mode, pads=pads, value=float(value))
    inputs = [input_names[0], C.int64s(context, pads, "pads")]
    if mode == "constant":
        inputs.append(C.const(context, value, "value", func.inputs[0].dtype))
    return onnx_helper.make_node("Pad", inputs, output_names, mode=mode)


def convert_ResizeImages(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    C.require_opset(func, opset_version, 11, "ONNX Resize with coordinate modes")
    if func.mode == "nearest":
        attrs = {"mode": "nearest", "coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor"}
    elif func.align_corners:
        attrs = {"mode": "linear", "coordinate_transformation_mode": "align_corners"}
    else:
        attrs = {"mode": "linear", "coordinate_transformation_mode": "half_pixel"}
    sizes = C.int64s(context, _out_shape(func), "sizes")
    roi = "" if opset_version >= 13 else C.const(context, [], "roi", numpy.float32)
    scales = "" if opset_version >= 13 else C.const(context, [], "scales", numpy.float32)
    return onnx_helper.make_node("Resize", [input_names[0], roi, scales, sizes], output_names, **attrs)


def _space_depth(func: Any, input_names: list[str], output_names: list[str], context: Any, to_depth: bool) -> Any:
    # Chainer's channel order (depth2space: channels split as (r, r, c)) is ONNX's DCR
    # order, but ONNX SpaceToDepth has no mode: write both as Reshape/Transpose.
    b, c, h, w = _in_shape(func)
    r = func.r
    gb = onnx_helper.GraphBuilder()
    if to_depth:
        shape, perm = (b, c, h // r, r, w // r, r), [0, 3, 5, 1, 2, 4]
    else:
        shape, perm = (b, r, r, c // (r * r), h, w), [0, 3, 4, 1, 5, 2]
    t = gb.op("Reshape", [input_names[0], C.int64s(context, shape, "shape")])
    t = gb.op("Transpose", [t], perm=perm)
    gb.op("Reshape", [t, C.int64s(context, _out_shape(func), "out_shape")])
    return gb.nodes(output_names)


def convert_Depth2Space(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    return _space_depth(func, input_names, output_names, context, False)


def convert_Space2Depth(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    return _space_depth(func, input_names, output_names, context, True)


def convert_flip(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    C.require_opset(func, opset_version, 10, "ONNX Slice with negative steps")
    ndim = len(_in_shape(func))
    axis = {"FlipLR": 1, "FlipUD": 0}.get(type(func).__name__)
    if axis is None:
        axis = func.axis
    axis = C.normalize_axis(int(axis), ndim)
    gb = onnx_helper.GraphBuilder()
    C.slice_(gb, input_names[0], [-1], [_BEFORE_START], [axis], [-1], opset_version, context, func, out=output_names)
    return gb.nodes()


def convert_Permutate(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    axis = C.normalize_axis(func.axis, len(_in_shape(func)))
    indices = input_names[1]
    gb = onnx_helper.GraphBuilder()
    if func.inv:
        value = context.value_of(indices)
        if value is None:
            raise C.unsupported(func, "inv=True and indices computed in the graph")
        indices = C.int64s(context, numpy.argsort(value), "inverse")
    gb.op("Gather", [input_names[0], indices], axis=axis)
    return gb.nodes(output_names)


def convert_GetItem(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    shape = _in_shape(func)
    slices = func.slices if isinstance(func.slices, tuple) else (func.slices,)
    n_axes = sum(1 for s in slices if s is not None and s is not Ellipsis)
    if sum(1 for s in slices if s is Ellipsis) > 1:
        raise C.unsupported(func, "more than one Ellipsis")
    items: list[Any] = []
    for s in slices:
        if s is Ellipsis:
            items.extend([slice(None)] * (len(shape) - n_axes))
        else:
            items.append(s)
    arrays = [s for s in items if isinstance(s, numpy.ndarray) or (hasattr(s, "shape") and not isinstance(s, slice))]
    if arrays:
        ints = [s for s in items if isinstance(s, (int, numpy.integer))]
        if len(arrays) > 1 or ints or arrays[0].dtype.kind not in "iu":
            raise C.unsupported(func, "advanced indexing other than one integer index array")
    starts, ends, axes, steps = [], [], [], []
    gather: tuple[int, Any] | None = None
    axis = 0
    for s in items:
        if s is None:
            continue
        dim = shape[axis]
        if isinstance(s, slice):
            start, stop, step = s.indices(dim)
            if (start, stop, step) != (0, dim, 1):
                if step < 0 and stop < 0:
                    stop = _BEFORE_START
                starts.append(start)
                ends.append(stop)
                axes.append(axis)
                steps.append(step)
        elif isinstance(s, (int, numpy.integer)):
            i = int(s) % dim
            starts.append(i)
            ends.append(i + 1)
            axes.append(axis)
            steps.append(1)
        else:
            gather = (axis, numpy.asarray(s))
        axis += 1
    gb = onnx_helper.GraphBuilder()
    x = input_names[0]
    if axes:
        use_steps = steps if any(st != 1 for st in steps) else None
        x = C.slice_(gb, x, starts, ends, axes, use_steps, opset_version, context, func)
    if gather is not None:
        g_axis, index = gather
        index = numpy.where(index < 0, index + shape[g_axis], index)
        # Gathered flat; the final Reshape restores the index's own shape.
        x = gb.op("Gather", [x, C.int64s(context, index.reshape(-1), "indices")], axis=g_axis)
    gb.op("Reshape", [x, C.int64s(context, _out_shape(func), "shape")])
    return gb.nodes(output_names)


CONVERTERS = {
    "Reshape": convert_Reshape,
    "Transpose": convert_Transpose,
    "Swapaxes": convert_axis_move,
    "Moveaxis": convert_axis_move,
    "Rollaxis": convert_axis_move,
    "Concat": convert_Concat,
    "Stack": _stack_like,
    "Hstack": _stack_like,
    "Vstack": _stack_like,
    "Dstack": _stack_like,
    "Squeeze": convert_Squeeze,
    "ExpandDims": convert_ExpandDims,
    "BroadcastTo": convert_BroadcastTo,
    "Cast": convert_Cast,
    "Copy": convert_Copy,
    "SplitAxis": convert_SplitAxis,
    "Separate": convert_Separate,
    "Tile": convert_Tile,
    "Repeat": convert_Repeat,
    "Where": convert_Where,
    "Pad": convert_Pad,
    "ResizeImages": convert_ResizeImages,
    "Depth2Space": convert_Depth2Space,
    "Space2Depth": convert_Space2Depth,
    "Flip": convert_flip,
    "FlipLR": convert_flip,
    "FlipUD": convert_flip,
    "Permutate": convert_Permutate,
    "GetItem": convert_GetItem,
}
