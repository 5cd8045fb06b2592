"""Pieces shared by the builtin converters: opset checks, errors, and operators whose
form changed between opsets (axes as attributes or as inputs)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy
import onnx.helper

from onnx_chainer import onnx_helper


def func_label(func: Any) -> str:
    return getattr(func, "custom_function_node_name", None) or type(func).__name__


def require_opset(func: Any, opset_version: int, minimum: int, why: str = "") -> None:
    if opset_version < minimum:
        reason = f" ({why})" if why else ""
        raise ValueError(
            f"onnx_chainer: {func_label(func)} ({onnx_helper.get_func_name()}) needs opset_version >= {minimum}"
            f"{reason}, got {opset_version}"
        )


class UnsupportedExportError(ValueError, NotImplementedError):
    """A function node, or an option of it, that the builtin converter cannot export.

    A ``ValueError`` (what Chainer 7.8.1 raised) and a ``NotImplementedError``.
    """


def unsupported(func: Any, what: str) -> UnsupportedExportError:
    return UnsupportedExportError(
        f"onnx_chainer: exporting {func_label(func)} ({onnx_helper.get_func_name()}) with {what} is not implemented; "
        "pass your own converter with export(..., external_converters=...)"
    )


def const(context: Any, value: Any, name: str, dtype: Any = None) -> str:
    return context.add_const(numpy.asarray(value, dtype=dtype), name)


def int64s(context: Any, values: Sequence[int], name: str) -> str:
    return context.add_const(numpy.asarray(list(values), dtype=numpy.int64), name)


def unsqueeze(
    gb: Any, x: str, axes: Sequence[int], opset_version: int, context: Any, out: list[str] | None = None
) -> Any:
    if opset_version >= 13:
        inputs, attrs = [x, int64s(context, axes, "axes")], {}
    else:
        inputs, attrs = [x], {"axes": list(axes)}
    if out is not None:
        return gb.op_output_named("Unsqueeze", inputs, out, **attrs)
    return gb.op("Unsqueeze", inputs, **attrs)


def squeeze(
    gb: Any, x: str, axes: Sequence[int] | None, opset_version: int, context: Any, out: list[str] | None = None
) -> Any:
    if axes is None:
        inputs, attrs = [x], {}
    elif opset_version >= 13:
        inputs, attrs = [x, int64s(context, axes, "axes")], {}
    else:
        inputs, attrs = [x], {"axes": list(axes)}
    if out is not None:
        return gb.op_output_named("Squeeze", inputs, out, **attrs)
    return gb.op("Squeeze", inputs, **attrs)


def reduce(
    gb: Any,
    op: str,
    x: str,
    axes: Sequence[int] | None,
    keepdims: bool,
    opset_version: int,
    context: Any,
    out: list[str] | None = None,
) -> Any:
    """``Reduce*``: axes moved from attribute to input in opset 13 (ReduceSum) / 18 (others)."""
    attrs: dict[str, Any] = {"keepdims": int(bool(keepdims))}
    inputs = [x]
    if axes is not None:
        as_input = opset_version >= (13 if op == "ReduceSum" else 18)
        if as_input:
            inputs.append(int64s(context, axes, "axes"))
        else:
            attrs["axes"] = list(axes)
    if out is not None:
        return gb.op_output_named(op, inputs, out, **attrs)
    return gb.op(op, inputs, **attrs)


def slice_(
    gb: Any,
    x: str,
    starts: Sequence[int],
    ends: Sequence[int],
    axes: Sequence[int],
    steps: Sequence[int] | None,
    opset_version: int,
    context: Any,
    func: Any,
    out: list[str] | None = None,
) -> Any:
    if opset_version >= 10:
        inputs = [x, int64s(context, starts, "starts"), int64s(context, ends, "ends"), int64s(context, axes, "axes")]
        if steps is not None:
            inputs.append(int64s(context, steps, "steps"))
        attrs: dict[str, Any] = {}
    else:
        if steps is not None and any(s != 1 for s in steps):
            require_opset(func, opset_version, 10, "slices with a step")
        inputs, attrs = [x], {"starts": list(starts), "ends": list(ends), "axes": list(axes)}
    if out is not None:
        return gb.op_output_named("Slice", inputs, out, **attrs)
    return gb.op("Slice", inputs, **attrs)


def normalize_axis(axis: int, ndim: int) -> int:
    return axis + ndim if axis < 0 else axis


def onnx_dtype(dtype: Any) -> int:
    """The ONNX element type of a NumPy dtype."""
    return onnx.helper.np_dtype_to_tensor_dtype(numpy.dtype(dtype))


def clip(
    x: str, low: float | None, high: float | None, dtype: Any, opset_version: int, out: list[str], context: Any
) -> Any:
    """``Clip`` of ``x`` to ``[low, high]`` (bounds as attributes before opset 11, inputs after)."""
    if opset_version < 11:
        attrs = {}
        if low is not None:
            attrs["min"] = float(low)
        if high is not None:
            attrs["max"] = float(high)
        return onnx_helper.make_node("Clip", [x], out, **attrs)
    inputs = [x, "" if low is None else const(context, low, "min", dtype)]
    if high is not None:
        inputs.append(const(context, high, "max", dtype))
    return onnx_helper.make_node("Clip", inputs, out)
