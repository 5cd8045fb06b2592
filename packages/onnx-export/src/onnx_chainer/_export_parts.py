"""Pieces of :func:`onnx_chainer.export`: the model's arguments as variables, the check
of what it returned, the running statistics a forward in training mode must leave as
they were, and the parts of the ONNX graph around the converted nodes."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy
import onnx
import onnx.helper
import onnx.shape_inference

import chainer
from onnx_chainer import _arrays
from onnx_chainer import context as context_module


def flatten_args(args: Any) -> tuple[list[Any], dict[str, Any], Any]:
    """``(positional, keyword, inputs)``: the model's arguments as fresh variables, and the
    same variables as a tuple, or as a dict when ``args`` is one."""

    def as_variable(value: Any, where: str) -> chainer.Variable:
        if isinstance(value, chainer.Variable):
            return chainer.Variable(value.array)
        if _arrays.is_array(value):
            return chainer.Variable(value)
        raise TypeError(
            f"onnx_chainer.export: {where} must be an array or a chainer.Variable, got {type(value).__name__}"
        )

    if isinstance(args, Mapping):
        kwargs = {str(key): as_variable(value, f"args[{key!r}]") for key, value in args.items()}
        return [], kwargs, dict(kwargs)
    if isinstance(args, (list, tuple)):
        positional = [as_variable(value, f"args[{i}]") for i, value in enumerate(args)]
    else:
        positional = [as_variable(args, "args")]
    return positional, {}, tuple(positional)


def check_outputs(outputs: Any) -> Any:
    """The model's outputs as a tuple of variables, or a dict of them."""
    if isinstance(outputs, chainer.Variable):
        return (outputs,)
    if isinstance(outputs, Mapping):
        items = list(outputs.items())
    elif isinstance(outputs, (list, tuple)):
        items = list(enumerate(outputs))
    else:
        raise RuntimeError(
            f"Unexpected output type from the model: {type(outputs).__name__}; onnx_chainer.export needs a "
            "chainer.Variable, or a list, tuple or dict of them"
        )
    for key, value in items:
        if not isinstance(value, chainer.Variable):
            raise ValueError(
                f"onnx_chainer.export: output {key!r} of the model is a {type(value).__name__}; every output "
                "must be Chainer Variable"
            )
    return dict(items) if isinstance(outputs, Mapping) else tuple(v for _, v in items)


def value_info(name: str, array: Any, shape: Sequence[Any] | None = None) -> onnx.ValueInfoProto:
    elem_type = onnx.helper.np_dtype_to_tensor_dtype(numpy.dtype(array.dtype))
    return onnx.helper.make_tensor_value_info(name, elem_type, list(array.shape if shape is None else shape))


def snapshot_persistents(model: Any) -> list[tuple[Any, Any]]:
    if not isinstance(model, chainer.Link):
        return []
    saved = []
    for _, link in model.namedlinks():
        for name in link._persistent:
            value = getattr(link, name, None)
            if _arrays.is_array(value):
                saved.append((value, value.copy()))
            elif value is not None:
                saved.append(((link, name), value))
    return saved


def restore_persistents(saved: list[tuple[Any, Any]]) -> None:
    for target, value in saved:
        if isinstance(target, tuple):
            setattr(target[0], target[1], value)
        else:
            target[...] = value


def warn_uninitialized(model: Any) -> None:
    if not isinstance(model, chainer.Link):
        return
    names = [path for path, param in model.namedparams() if param.array is None]
    if names:
        warnings.warn(
            f"onnx_chainer.export: the parameter(s) {names} are not initialized (their links were not called in "
            "the forward pass); they are not exported",
            UserWarning,
            stacklevel=3,
        )


def prune(nodes: list[onnx.NodeProto], ctx: context_module.Context, output_names: Sequence[str]) -> None:
    """Drop the constants and initializers no node reads (a converter replaced them)."""
    used = set(output_names)
    for node in nodes:
        used.update(node.input)
    ctx._drop_constants_except(used)
    ctx.parameters = [p for p in ctx.parameters if p[0] in used]


def symbolic_outputs(model: onnx.ModelProto, count: int) -> list[onnx.ValueInfoProto]:
    """Output types with the dimensions ONNX shape inference derives from symbolic inputs."""
    try:
        inferred = onnx.shape_inference.infer_shapes(model)
    except Exception:  # inference is best effort: the outputs keep unknown dimensions
        return []
    outputs = list(inferred.graph.output)
    return outputs if len(outputs) == count else []
