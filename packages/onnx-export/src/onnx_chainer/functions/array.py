"""Converters of array manipulation functions (``chainer.functions.array``).

Shapes are static in an exported graph (the recorded forward pass fixes them), so
converters use the input and output shapes recorded on the graph nodes.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy

from onnx_chainer import onnx_helper
from onnx_chainer.functions import _common as C

__all__ = [
    "convert_BroadcastTo",
    "convert_Cast",
    "convert_Concat",
    "convert_Copy",
    "convert_Depth2Space",
    "convert_Dstack",
    "convert_ExpandDims",
    "convert_Flip",
    "convert_FlipLR",
    "convert_FlipUD",
    "convert_GetItem",
    "convert_Hstack",
    "convert_Moveaxis",
    "convert_Pad",
    "convert_Permutate",
    "convert_Repeat",
    "convert_Reshape",
    "convert_ResizeImages",
    "convert_Rollaxis",
    "convert_SelectItem",
    "convert_Separate",
    "convert_Shape",
    "convert_Space2Depth",
    "convert_SplitAxis",
    "convert_Squeeze",
    "convert_Stack",
    "convert_Swapaxes",
    "convert_Tile",
    "convert_Transpose",
    "convert_TransposeSequence",
    "convert_Vstack",
    "convert_Where",
    "get_slice_node",
]

# An end index before the first element, for slices with a negative step.
_BEFORE_START = -(2**62)


def _to_ndarray(x: Any, dtype: Any = numpy.int64) -> numpy.ndarray:
    """``x`` (an int, a sequence or an array) as a NumPy array of ``dtype``."""
    return numpy.asarray(x, dtype=dtype)


def _out_shape(func: Any, i: int = 0) -> tuple[int, ...]:
    node = func.outputs[i]()
    if node is None:
        raise C.unsupported(func, "an output that was discarded before export")
    return tuple(node.shape)


def _in_shape(func: Any, i: int = 0) -> tuple[int, ...]:
    return tuple(func.inputs[i].shape)


def get_slice_node(
    gb: onnx_helper.GraphBuilder,
    opset_version: int,
    context: Any,
    input_names: Sequence[str],
    axes: Sequence[int],
    starts: Sequence[int],
    ends: Sequence[int],
    steps: Sequence[int] | None,
) -> str:
    """Add a ``Slice`` of ``input_names[0]`` to ``gb``; returns the name of its output.

    Before opset 10 the bounds are attributes and steps other than 1 cannot be
    expressed (``ValueError``); from opset 10 on they are inputs.
    """
    if opset_version >= 10:
        inputs = [
            input_names[0],
            C.int64s(context, starts, "starts"),
            C.int64s(context, ends, "ends"),
            C.int64s(context, axes, "axes"),
        ]
        if steps is not None and any(s != 1 for s in steps):
            inputs.append(C.int64s(context, steps, "steps"))
        return gb.op("Slice", inputs)
    if steps is not None and any(s != 1 for s in steps):
        raise ValueError(
            f"onnx_chainer: a slice with a step other than 1 ({onnx_helper.get_func_name()}) needs "
            f"opset_version >= 10, got {opset_version}"
        )
    return gb.op("Slice", [input_names[0]], starts=list(starts), ends=list(ends), axes=list(axes))


def _reshape(gb: onnx_helper.GraphBuilder, x: str, shape: Sequence[int], context: Any) -> str:
    return gb.op("Reshape", [x, C.int64s(context, shape, "shape")])


def convert_Reshape(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    if len(input_names) == 2:
        # A shape computed in the graph (a function wrapped with as_funcnode('Reshape')).
        gb = onnx_helper.GraphBuilder()
        shape = input_names[1]
        if func.inputs[1].dtype != numpy.int64:
            shape = gb.op("Cast", [shape], to=C.onnx_dtype(numpy.int64))
        gb.op("Reshape", [input_names[0], shape])
        return gb.nodes(output_names)
    # The shape the user asked for (it may hold -1), else the recorded one.
    shape = getattr(func, "shape", None)
    if not isinstance(shape, tuple) or not all(isinstance(d, (int, numpy.integer)) for d in shape) or 0 in shape:
        shape = _out_shape(func)
    return onnx_helper.make_node("Reshape", [input_names[0], C.int64s(context, shape, "shape")], output_names)


def _transpose(input_names: list[str], output_names: list[str], perm: Sequence[int]) -> Any:
    return onnx_helper.make_node("Transpose", input_names[:1], output_names, perm=[int(p) for p in perm])


def convert_Transpose(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    ndim = len(_in_shape(func))
    axes = func.axes
    perm = list(range(ndim))[::-1] if axes is None else [C.normalize_axis(int(a), ndim) for a in axes]
    return _transpose(input_names, output_names, perm)


def _axes_of(ndim: int, move: Any) -> list[int]:
    """The permutation an axis-moving function applies, read off distinct axis sizes."""
    moved = move(numpy.empty(tuple(range(2, ndim + 2)), dtype=numpy.int8))
    return [s - 2 for s in moved.shape]


def convert_Swapaxes(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    perm = _axes_of(len(_in_shape(func)), lambda a: numpy.swapaxes(a, func.axis1, func.axis2))
    return _transpose(input_names, output_names, perm)


def convert_Moveaxis(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    perm = _axes_of(len(_in_shape(func)), lambda a: numpy.moveaxis(a, func.source, func.destination))
    return _transpose(input_names, output_names, perm)


def convert_Rollaxis(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    perm = _axes_of(len(_in_shape(func)), lambda a: numpy.rollaxis(a, func.axis, func.start))
    return _transpose(input_names, output_names, perm)


def convert_Concat(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    axis = C.normalize_axis(func.axis, len(_in_shape(func)))
    return onnx_helper.make_node("Concat", input_names, output_names, axis=axis)


def convert_Stack(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    axis = C.normalize_axis(func.axis, len(_out_shape(func)))
    gb = onnx_helper.GraphBuilder()
    names = [C.unsqueeze(gb, name, [axis], opset_version, context) for name in input_names]
    gb.op("Concat", names, axis=axis)
    return gb.nodes(output_names)


def _concat_reshaped(
    func: Any, input_names: list[str], output_names: list[str], context: Any, target: Any, axis: int
) -> Any:
    """Reshape every input to ``target(shape)`` (as NumPy's h/v/dstack do), then Concat."""
    gb = onnx_helper.GraphBuilder()
    names = []
    for i, name in enumerate(input_names):
        shape = _in_shape(func, i)
        wanted = target(shape)
        names.append(name if wanted == shape else _reshape(gb, name, wanted, context))
    gb.op("Concat", names, axis=axis)
    return gb.nodes(output_names)


def convert_Hstack(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    axis = 0 if len(_in_shape(func)) <= 1 else 1
    return _concat_reshaped(func, input_names, output_names, context, lambda s: s if s else (1,), axis)


def convert_Vstack(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return _concat_reshaped(func, input_names, output_names, context, lambda s: s if len(s) >= 2 else (1, *s, 1)[:2], 0)


def convert_Dstack(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    def target(shape: tuple[int, ...]) -> tuple[int, ...]:
        return {0: (1, 1, 1), 1: (1, *shape, 1), 2: (*shape, 1)}.get(len(shape), shape)

    return _concat_reshaped(func, input_names, output_names, context, target, 2)


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
    if len(sizes) == 1:
        gb.op_output_named("Identity", input_names[:1], output_names)
    else:
        _split(gb, input_names[0], sizes, axis, opset_version, context, output_names)
    return gb.nodes()


def convert_Separate(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    shape = _in_shape(func)
    axis = C.normalize_axis(func.axis, len(shape))
    gb = onnx_helper.GraphBuilder()
    if len(output_names) == 1:
        parts = input_names[:1]
    else:
        parts = [gb.node_name() for _ in output_names]
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
        x = _reshape(gb, x, padded, context)
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
        x = _reshape(gb, x, [-1], context)
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
    in_shape = _in_shape(func)
    out_shape = _out_shape(func)
    nearest = func.mode == "nearest"
    if opset_version >= 11:
        if nearest:
            attrs = {"mode": "nearest", "coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor"}
        elif func.align_corners:
            attrs = {"mode": "linear", "coordinate_transformation_mode": "align_corners"}
        else:
            attrs = {"mode": "linear", "coordinate_transformation_mode": "half_pixel"}
        sizes = C.int64s(context, out_shape, "sizes")
        roi = "" if opset_version >= 13 else C.const(context, [], "roi", numpy.float32)
        scales = "" if opset_version >= 13 else C.const(context, [], "scales", numpy.float32)
        return onnx_helper.make_node("Resize", [input_names[0], roi, scales, sizes], output_names, **attrs)
    if nearest:
        # Output pixel i reads input pixel floor(i * in / out): two gathers.
        gb = onnx_helper.GraphBuilder()
        h = input_names[0]
        for axis in (2, 3):
            index = numpy.floor(numpy.arange(out_shape[axis]) * (in_shape[axis] / out_shape[axis]))
            h = gb.op("Gather", [h, C.int64s(context, index.astype(numpy.int64), "indices")], axis=axis)
        return gb.nodes(output_names)
    # Before opset 11 bilinear resizing only knows the asymmetric mapping (output pixel i
    # reads input position i * in / out), which is not Chainer's.
    # The runtime computes the output size as floor(in * scale) with the float32 scale.
    scales = numpy.asarray([o / i for o, i in zip(out_shape, in_shape)], numpy.float32)
    if any(int(numpy.floor(i * float(sc))) != o for i, sc, o in zip(in_shape, scales, out_shape)):
        raise C.unsupported(func, f"output size {out_shape[2:]} (no float32 scale gives it) before opset 11")
    warnings.warn(
        f"onnx_chainer: {C.func_label(func)} ({onnx_helper.get_func_name()}) is exported with bilinear "
        f"interpolation that opset {opset_version} can express (Upsample/Resize without coordinate modes); "
        "the values differ from Chainer's. Export with opset_version >= 11 for the same values.",
        UserWarning,
        stacklevel=2,
    )
    if opset_version >= 9:
        values = C.const(context, scales, "scales", numpy.float32)
        op = "Resize" if opset_version >= 10 else "Upsample"
        return onnx_helper.make_node(op, [input_names[0], values], output_names, mode="linear")
    return onnx_helper.make_node("Upsample", input_names[:1], output_names, mode="linear", scales=scales.tolist())


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
    t = _reshape(gb, input_names[0], shape, context)
    t = gb.op("Transpose", [t], perm=perm)
    _reshape(gb, t, _out_shape(func), context)
    return gb.nodes(output_names)


def convert_Depth2Space(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    return _space_depth(func, input_names, output_names, context, False)


def convert_Space2Depth(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    return _space_depth(func, input_names, output_names, context, True)


def _flip(
    func: Any, axis: int, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    C.require_opset(func, opset_version, 10, "ONNX Slice with negative steps")
    axis = C.normalize_axis(int(axis), len(_in_shape(func)))
    gb = onnx_helper.GraphBuilder()
    get_slice_node(gb, opset_version, context, input_names, [axis], [-1], [_BEFORE_START], [-1])
    return gb.nodes(output_names)


def convert_Flip(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return _flip(func, func.axis, opset_version, input_names, output_names, context)


def convert_FlipLR(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return _flip(func, 1, opset_version, input_names, output_names, context)


def convert_FlipUD(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return _flip(func, 0, opset_version, input_names, output_names, context)


def _inverse_permutation(
    gb: onnx_helper.GraphBuilder, func: Any, indices: str, n: int, opset_version: int, context: Any
) -> str:
    """The inverse of the permutation ``indices``: a constant when they are one,
    else ``inverse[indices[i]] = i`` by a scatter in the graph."""
    value = context.value_of(indices)
    if value is not None:
        return C.int64s(context, numpy.argsort(value), "inverse")
    C.require_opset(func, opset_version, 9, "inv=True with indices computed in the graph needs ONNX Scatter")
    zeros = C.int64s(context, numpy.zeros(n, numpy.int64), "zeros")
    positions = C.int64s(context, numpy.arange(n), "range")
    indices = gb.op("Cast", [indices], to=C.onnx_dtype(numpy.int64))
    op = "ScatterElements" if opset_version >= 11 else "Scatter"
    return gb.op(op, [zeros, indices, positions], axis=0)


def convert_Permutate(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    shape = _in_shape(func)
    axis = C.normalize_axis(func.axis, len(shape))
    indices = input_names[1]
    gb = onnx_helper.GraphBuilder()
    if func.inv:
        indices = _inverse_permutation(gb, func, indices, shape[axis], opset_version, context)
    gb.op("Gather", [input_names[0], indices], axis=axis)
    return gb.nodes(output_names)


def convert_SelectItem(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    # y[i] = x[i, t[i]]: a gather from the flattened x at i * n_classes + t[i].
    batch, n_classes = _in_shape(func)
    gb = onnx_helper.GraphBuilder()
    flat = _reshape(gb, input_names[0], [-1], context)
    t = gb.op("Cast", [input_names[1]], to=C.onnx_dtype(numpy.int64))
    offsets = C.int64s(context, numpy.arange(batch) * n_classes, "offsets")
    index = gb.op("Add", [t, offsets])
    gb.op("Gather", [flat, index], axis=0)
    return gb.nodes(output_names)


def convert_Shape(func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any) -> Any:
    return onnx_helper.make_node("Shape", input_names[:1], output_names)


def convert_TransposeSequence(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    # Output t stacks element t of every sequence longer than t (they come longest first).
    lengths = [_in_shape(func, i)[0] for i in range(len(input_names))]
    gb = onnx_helper.GraphBuilder()
    for t, out in enumerate(output_names):
        rows = [
            get_slice_node(gb, opset_version, context, [name], [0], [t], [t + 1], None)
            for name, length in zip(input_names, lengths)
            if length > t
        ]
        if len(rows) == 1:
            gb.op_output_named("Identity", rows, [out])
        else:
            gb.op_output_named("Concat", rows, [out], axis=0)
    return gb.nodes()


def _is_int(index: Any) -> bool:
    if isinstance(index, bool):
        return False
    if isinstance(index, (int, numpy.integer)):
        return True
    return isinstance(index, numpy.ndarray) and index.ndim == 0 and index.dtype.kind in "iu"


def _index_items(func: Any, ndim: int) -> list[Any]:
    """``func.slices`` as a list with the Ellipsis expanded and integer arrays as int64
    arrays (0-d ones as ints)."""
    slices = func.slices if isinstance(func.slices, tuple) else (func.slices,)
    items: list[Any] = []
    for s in slices:
        if s is None or s is Ellipsis or isinstance(s, slice) or _is_int(s):
            items.append(int(s) if _is_int(s) else s)
            continue
        # CuPy index arrays come to the host with .get().
        array = numpy.asarray(s.get() if hasattr(s, "get") and not isinstance(s, list) else s)
        if array.dtype.kind not in "iu":
            raise C.unsupported(func, f"an index array of dtype {array.dtype}")
        items.append(array.astype(numpy.int64))
    if sum(1 for s in items if s is Ellipsis) > 1:
        raise C.unsupported(func, "more than one Ellipsis")
    n_axes = sum(1 for s in items if s is not None and s is not Ellipsis)
    expanded: list[Any] = []
    for s in items:
        if s is Ellipsis:
            expanded.extend([slice(None)] * (ndim - n_axes))
        else:
            expanded.append(s)
    return expanded


def convert_GetItem(
    func: Any, opset_version: int, input_names: list[str], output_names: list[str], context: Any
) -> Any:
    shape = _in_shape(func)
    items = _index_items(func, len(shape))
    arrays = [i for i, s in enumerate(items) if isinstance(s, numpy.ndarray)]
    advanced = [i for i, s in enumerate(items) if isinstance(s, (int, numpy.ndarray))]
    # The slices (ints as slices of one element) and, per array index, its input axis.
    starts, ends, axes, steps = [], [], [], []
    array_axes = []
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
        elif isinstance(s, int):
            i = s % dim
            starts.append(i)
            ends.append(i + 1)
            axes.append(axis)
            steps.append(1)
        else:
            array_axes.append(axis)
        axis += 1
    if advanced and advanced != list(range(advanced[0], advanced[-1] + 1)) and arrays:
        raise C.unsupported(func, "integer and array indices that are not next to each other")

    gb = onnx_helper.GraphBuilder()
    x = input_names[0]
    if axes:
        x = get_slice_node(gb, opset_version, context, [x], axes, starts, ends, steps)
    if len(arrays) == 1:
        g_axis = array_axes[0]
        index = items[arrays[0]]
        index = numpy.where(index < 0, index + shape[g_axis], index)
        x = gb.op("Gather", [x, C.int64s(context, index, "indices")], axis=g_axis)
    elif arrays:
        # Several index arrays gather with GatherND, which reads the leading axes: the
        # arrays must be next to each other, with only ints before or after them.
        if arrays != list(range(arrays[0], arrays[-1] + 1)) or advanced[0] != 0:
            raise C.unsupported(func, "index arrays that are apart or do not start at the first axis")
        C.require_opset(func, opset_version, 11, "several index arrays need ONNX GatherND")
        n = len(advanced)
        parts = [numpy.asarray(items[i]) if isinstance(items[i], numpy.ndarray) else 0 for i in advanced]
        # Ints were sliced to one element, so they index 0 of their axis now.
        parts = [
            numpy.where(p < 0, p + shape[k], p) if isinstance(p, numpy.ndarray) else p for k, p in enumerate(parts)
        ]
        index = numpy.stack(numpy.broadcast_arrays(*parts), axis=-1).astype(numpy.int64)
        assert index.shape[-1] == n
        x = gb.op("GatherND", [x, C.int64s(context, index, "indices")])
    gb.op("Reshape", [x, C.int64s(context, _out_shape(func), "shape")])
    return gb.nodes(output_names)
