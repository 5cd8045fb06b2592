"""``onnx_chainer.export``: run a model once and write its computational graph as ONNX.

The model's forward runs on the given inputs with backprop enabled, so every function
applied records itself in the graph. A function hook active during that run keeps, in
application order, each function node with its input arrays (so constants fed to the
graph, which no variable keeps alive, can be embedded). The graph is then walked from
the outputs: function nodes become ONNX nodes through the converter registered for
their class name, parameters of the model become initializers named after their path,
other leaves become constants.
"""

from __future__ import annotations

import collections
import io
import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy
import onnx
import onnx.helper
import onnx.numpy_helper

import chainer
from chainer.backends import cuda
from onnx_chainer import _arrays, _version, converters, onnx_helper
from onnx_chainer import context as context_module

__all__ = ["MAXIMUM_OPSET_VERSION", "MINIMUM_OPSET_VERSION", "convert_parameter", "export"]

#: Lowest ``opset_version`` :func:`export` writes (that of Chainer 7.8.1's exporter).
MINIMUM_OPSET_VERSION = 7
#: Highest ``opset_version`` :func:`export` writes: the newest ai.onnx opset that
#: onnxruntime 1.31 runs. It is also the default when the installed ``onnx`` knows it.
MAXIMUM_OPSET_VERSION = 26

# The lowest IR version that carries each opset (IR >= 4 always: initializers need not be
# graph inputs). Pinned rather than taken from the installed onnx, whose newest IR version
# runtimes may not read yet.
_IR_VERSIONS = (
    (9, 4),
    (10, 5),
    (11, 6),
    (14, 7),
    (18, 8),
    (20, 9),
    (22, 10),
    (23, 11),
    (24, 12),
    (26, 13),
)


def _ir_version(opset_version: int) -> int:
    for last_opset, ir in _IR_VERSIONS:
        if opset_version <= last_opset:
            return ir
    raise AssertionError(opset_version)


def _default_opset_version() -> int:
    return min(onnx.defs.onnx_opset_version(), MAXIMUM_OPSET_VERSION)


def _to_numpy(array: Any) -> numpy.ndarray:
    return numpy.asarray(cuda.to_cpu(array))


def convert_parameter(parameter: Any, context: context_module.Context) -> onnx.TensorProto:
    """The value of a parameter (or variable, or array) as a named :class:`onnx.TensorProto`.

    Args:
        parameter: A :class:`chainer.Parameter` / :class:`chainer.Variable` (named with
            ``context.get_name``) or an array (named ``param<N>``).
        context: The :class:`~onnx_chainer.context.Context` of the export.
    """
    if isinstance(parameter, chainer.Variable):
        if parameter.array is None:
            raise ValueError(
                f"onnx_chainer.convert_parameter: the parameter {context.get_name(parameter)!r} is not initialized"
            )
        return onnx.numpy_helper.from_array(_to_numpy(parameter.array), context.get_name(parameter))
    if _arrays.is_array(parameter):
        return onnx.numpy_helper.from_array(_to_numpy(parameter), context._fresh("param"))
    raise TypeError(
        f"onnx_chainer.convert_parameter: expected a chainer.Variable or an array, got {type(parameter).__name__}"
    )


class _Recorder(chainer.FunctionHook):
    """Keeps, in application order, every function node applied and its input arrays."""

    name = "onnx_chainer_recorder"

    def __init__(self) -> None:
        self.order: dict[int, int] = {}
        self.inputs: dict[int, tuple[Any, ...]] = {}
        self._keep: list[Any] = []

    def forward_postprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self.order[id(function)] = len(self._keep)
        self.inputs[id(function)] = in_data
        self._keep.append(function)


def _flatten_args(args: Any) -> tuple[list[Any], dict[str, Any], list[tuple[str, Any]]]:
    """``(positional, keyword, [(default name, array)])`` of the model's inputs."""

    def as_array(value: Any, where: str) -> Any:
        if isinstance(value, chainer.Variable):
            return value.array
        if _arrays.is_array(value):
            return value
        raise TypeError(
            f"onnx_chainer.export: {where} must be an array or a chainer.Variable, got {type(value).__name__}"
        )

    if isinstance(args, Mapping):
        kwargs = {}
        named = []
        for key, value in args.items():
            var = chainer.Variable(as_array(value, f"args[{key!r}]"))
            kwargs[key] = var
            named.append((str(key), var))
        return [], kwargs, named
    items = list(args) if isinstance(args, (list, tuple)) else [args]
    positional = []
    named = []
    for i, value in enumerate(items):
        var = chainer.Variable(as_array(value, f"args[{i}]" if isinstance(args, (list, tuple)) else "args"))
        positional.append(var)
        named.append((f"Input_{i}", var))
    return positional, {}, named


def _flatten_outputs(outputs: Any) -> list[tuple[str, chainer.Variable]]:
    if isinstance(outputs, chainer.Variable):
        items: list[tuple[str, Any]] = [("Output_0", outputs)]
    elif isinstance(outputs, Mapping):
        items = [(str(k), v) for k, v in outputs.items()]
    elif isinstance(outputs, (list, tuple)):
        items = [(f"Output_{i}", v) for i, v in enumerate(outputs)]
    else:
        raise TypeError(
            "onnx_chainer.export: the model must return a chainer.Variable, or a list, tuple or dict of them; "
            f"got {type(outputs).__name__}"
        )
    for name, value in items:
        if not isinstance(value, chainer.Variable):
            raise TypeError(
                f"onnx_chainer.export: output {name!r} of the model is a {type(value).__name__}, not a Variable"
            )
    return items


def _rename(named: list[tuple[str, Any]], names: Any, what: str) -> list[tuple[str, Any]]:
    if names is None:
        return named
    if isinstance(names, str):
        names = [names]
    if isinstance(names, Mapping):
        unknown = set(names) - {n for n, _ in named}
        if unknown:
            raise ValueError(
                f"onnx_chainer.export: {what}_names has unknown key(s) {sorted(unknown)}; "
                f"the {what}s are {[n for n, _ in named]}"
            )
        renamed = [(str(names.get(n, n)), v) for n, v in named]
    elif isinstance(names, Sequence):
        if len(names) != len(named):
            raise ValueError(
                f"onnx_chainer.export: {what}_names has {len(names)} name(s) but the model has {len(named)} {what}(s)"
            )
        renamed = [(str(n), v) for n, (_, v) in zip(names, named)]
    else:
        raise TypeError(f"onnx_chainer.export: {what}_names must be a list, tuple or dict, got {type(names).__name__}")
    if len({n for n, _ in renamed}) != len(renamed):
        raise ValueError(f"onnx_chainer.export: the {what} names must be unique, got {[n for n, _ in renamed]}")
    return renamed


def _function_key(function: Any) -> str:
    return getattr(function, "custom_function_node_name", None) or type(function).__name__


def _collect_functions(output_nodes: list[Any], recorder: _Recorder) -> list[Any]:
    """The function nodes the outputs depend on, in the order they were applied."""
    seen: dict[int, Any] = {}
    stack = [node.creator_node for node in output_nodes if node.creator_node is not None]
    while stack:
        function = stack.pop()
        if id(function) in seen:
            continue
        seen[id(function)] = function
        for node in function.inputs or ():
            if node.creator_node is not None and id(node.creator_node) not in seen:
                stack.append(node.creator_node)
    # Functions applied while the recorder was on come in application order (a
    # topological order); a graph built before export() started comes first, by rank.
    return sorted(seen.values(), key=lambda f: (id(f) in recorder.order, recorder.order.get(id(f), f.rank), f.rank))


def _value_info(name: str, array: Any) -> onnx.ValueInfoProto:
    elem_type = onnx.helper.np_dtype_to_tensor_dtype(numpy.dtype(array.dtype))
    return onnx.helper.make_tensor_value_info(name, elem_type, list(array.shape))


def _snapshot_persistents(model: Any) -> list[tuple[Any, Any]]:
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


def _restore_persistents(saved: list[tuple[Any, Any]]) -> None:
    for target, value in saved:
        if isinstance(target, tuple):
            setattr(target[0], target[1], value)
        else:
            target[...] = value


def export(
    model: Any,
    args: Any,
    filename: Any = None,
    export_params: bool = True,
    graph_name: str = "Graph",
    save_text: bool = False,
    opset_version: int | None = None,
    train: bool = False,
    return_named_inout: bool = False,
    external_converters: Mapping[str, Any] | None = None,
    external_opset_imports: Mapping[str, int] | None = None,
    input_names: Any = None,
    output_names: Any = None,
) -> Any:
    """Export function for chainer.Chain in ONNX format.

    Runs ``model(*args)`` once (``model(**args)`` for a dict) with backprop enabled and
    converts the computational graph it records. Function nodes are converted by the
    converter registered for their class name (see :mod:`onnx_chainer.converters`);
    ``external_converters`` take precedence. Running statistics the forward would update
    (``train=True``) are restored afterwards, so exporting does not change the model.

    Args:
        model: The :class:`chainer.Chain` (or any callable taking variables).
        args: Input array(s): an array or Variable, a list/tuple of them (positional
            arguments), or a dict (keyword arguments).
        filename: A path or a writable binary file object to save the model to
            (written atomically for a path); ``None`` saves nothing.
        export_params: If ``True`` the parameters are stored as initializers; if
            ``False`` they become graph inputs without values.
        graph_name: Name of the ONNX graph.
        save_text: Also write the text form of the model to ``filename + '.txt'``.
        opset_version: The ai.onnx opset, between :data:`MINIMUM_OPSET_VERSION` and
            :data:`MAXIMUM_OPSET_VERSION`; ``None`` is the newest both this package and
            the installed ``onnx`` support.
        train: Value of ``chainer.config.train`` during the forward pass.
        return_named_inout: Also return the inputs and outputs by ONNX name.
        external_converters: ``{function class name: converter}`` used before the
            registered converters (a converter is called as
            ``converter(func, opset_version, input_names, output_names, context)`` and
            returns ONNX node(s)).
        external_opset_imports: ``{domain: version}`` for custom operators that
            external converters emit.
        input_names: Names of the graph inputs: a list (one per input), or a dict from
            the default name (``Input_0`` ..., or the keys of a dict ``args``) to the new
            one. Default ``Input_<i>``.
        output_names: The same for outputs (default ``Output_<i>``, or the keys of a
            dict returned by the model).

    Returns:
        The :class:`onnx.ModelProto`; with ``return_named_inout`` the tuple
        ``(model, inputs, outputs)`` where ``inputs``/``outputs`` are ordered dicts from
        ONNX names to the variables used and produced.

    Example:
        >>> import onnx_chainer
        >>> model = chainer.Sequential(L.Linear(3, 2), F.relu)
        >>> onnx_model = onnx_chainer.export(model, np.zeros((1, 3), 'f'))
        >>> [n.op_type for n in onnx_model.graph.node]
        ['Gemm', 'Relu']
    """
    if opset_version is None:
        opset_version = _default_opset_version()
    if not isinstance(opset_version, int) or isinstance(opset_version, bool):
        raise TypeError(f"onnx_chainer.export: opset_version must be an int, got {type(opset_version).__name__}")
    if not MINIMUM_OPSET_VERSION <= opset_version <= MAXIMUM_OPSET_VERSION:
        raise ValueError(
            f"onnx_chainer.export: opset_version must be between {MINIMUM_OPSET_VERSION} and "
            f"{MAXIMUM_OPSET_VERSION}, got {opset_version}"
        )
    if opset_version > onnx.defs.onnx_opset_version():
        raise ValueError(
            f"onnx_chainer.export: the installed onnx {onnx.__version__} supports opsets up to "
            f"{onnx.defs.onnx_opset_version()}, got opset_version={opset_version}"
        )
    external_converters = dict(external_converters or {})
    for key, conv in external_converters.items():
        if not callable(conv):
            raise TypeError(f"onnx_chainer.export: external_converters[{key!r}] is not callable")

    positional, keyword, named_inputs = _flatten_args(args)
    named_inputs = _rename(named_inputs, input_names, "input")

    recorder = _Recorder()
    saved = _snapshot_persistents(model)
    try:
        with chainer.using_config("train", train), chainer.using_config("enable_backprop", True), recorder:
            outputs = model(*positional, **keyword)
    finally:
        _restore_persistents(saved)
    named_outputs = _rename(_flatten_outputs(outputs), output_names, "output")

    onnx_helper._reset_names()
    ctx = context_module.Context(model)
    input_ids = set()
    for name, var in named_inputs:
        ctx.set_name(var, name, pinned=True)
        input_ids.add(id(var.node))

    nodes: list[onnx.NodeProto] = []
    # Outputs that are inputs, leaves or repeated need an Identity node of their own.
    aliases: list[tuple[str, Any]] = []
    output_nodes = []
    for name, var in named_outputs:
        node = var.node
        output_nodes.append(node)
        if id(node) in ctx.name_list or node.creator_node is None:
            aliases.append((name, node))
        else:
            ctx.set_name(var, name, pinned=True)

    functions = _collect_functions(output_nodes, recorder)
    param_inputs: dict[str, Any] = {}
    leaf_named: set[int] = set()

    def name_leaf(node: Any, function: Any, index: int) -> str:
        """Name a graph leaf: an input, a parameter or a constant."""
        if id(node) in ctx.name_list:
            return ctx.name_list[id(node)]
        var = node.get_variable_or_none()
        pname = ctx.param_name(var) if var is not None else None
        if pname is None and isinstance(var, chainer.Parameter):
            pname = ctx._fresh("param")
        if pname is not None:
            if var.array is None:
                raise ValueError(f"onnx_chainer.export: the parameter {pname!r} is not initialized")
            ctx.set_name(node, pname)
            ctx.parameters.append((pname, _to_numpy(var.array), True))
            ctx._initializer_names.add(pname)
            param_inputs[pname] = var.array
            return pname
        if var is not None:
            array = var.array
        elif node.data is not None:
            array = node.data
        else:
            array = recorder.inputs[id(function)][index]
        cname = ctx.persistent_name(array)
        name = ctx._fresh(cname if cname is not None else f"{onnx_helper.get_func_name()}_in{index}")
        ctx.set_name(node, name)
        ctx.parameters.append((name, _to_numpy(array), False))
        ctx._initializer_names.add(name)
        return name

    counts: collections.Counter[str] = collections.Counter()
    for function in functions:
        key = _function_key(function)
        func_name = f"{key}_{counts[key]}"
        counts[key] += 1
        onnx_helper.set_func_name(func_name)
        in_names = []
        for index, node in enumerate(function.inputs):
            if node.creator_node is None and id(node) not in input_ids:
                in_names.append(name_leaf(node, function, index))
                leaf_named.add(id(node))
            else:
                in_names.append(ctx.get_name(node) if id(node) in ctx.name_list else _missing(node, function))
        out_names = []
        n_out = len(function.outputs)
        for i, ref in enumerate(function.outputs):
            node = ref()
            default = func_name if n_out == 1 else f"{func_name}_{i}"
            if node is None:
                out_names.append(ctx._fresh(default))
                ctx._used.add(out_names[-1])
            elif id(node) in ctx.name_list:
                out_names.append(ctx.name_list[id(node)])
            else:
                ctx.set_name(node, ctx._fresh(default))
                out_names.append(ctx.name_list[id(node)])
        converter = external_converters.get(key) or converters.registered_converters.get(key)
        if converter is None:
            raise ValueError(
                f"onnx_chainer.export: no ONNX converter for the function node {key!r} ({func_name}, "
                f"{type(function).__module__}.{type(function).__qualname__}); pass one with "
                f"external_converters={{{key!r}: converter}} or register it through the "
                "chainer_register_onnx_converters plugin hook"
            )
        result = converter(function, opset_version, in_names, out_names, ctx)
        nodes.extend(_as_node_list(result, func_name))

    for name, node in aliases:
        onnx_helper.set_func_name(name)
        if id(node) not in ctx.name_list:
            var = node.get_variable_or_none()
            if var is None:
                raise ValueError(f"onnx_chainer.export: the value of output {name!r} is gone")
            source = ctx.add_const(var.array, "value")
        else:
            source = ctx.name_list[id(node)]
        nodes.append(onnx_helper.make_node("Identity", [source], [name]))

    graph_inputs = [_value_info(name, var.array) for name, var in named_inputs]
    if not export_params:
        graph_inputs += [_value_info(name, array) for name, array in param_inputs.items()]
    graph_outputs = [_value_info(name, var.array) for name, var in named_outputs]
    graph = onnx.helper.make_graph(nodes, graph_name, graph_inputs, graph_outputs, ctx.initializers(export_params))
    opset_imports = [onnx.helper.make_opsetid("", opset_version)]
    for domain, version in (external_opset_imports or {}).items():
        opset_imports.append(onnx.helper.make_opsetid(domain, version))
    onnx_model = onnx.helper.make_model(
        graph,
        opset_imports=opset_imports,
        producer_name="Chainer",
        producer_version=chainer.__version__,
        doc_string=f"exported by onnx_chainer {_version.__version__}",
    )
    onnx_model.ir_version = _ir_version(opset_version)
    onnx.checker.check_model(onnx_model)

    if filename is not None:
        data = onnx_model.SerializeToString()
        if isinstance(filename, (str, os.PathLike)):
            onnx_helper._write_bytes_atomic(filename, data)
            if save_text:
                onnx_helper._write_bytes_atomic(os.fspath(filename) + ".txt", str(onnx_model).encode())
        elif isinstance(filename, io.IOBase) or hasattr(filename, "write"):
            filename.write(data)
        else:
            raise TypeError(
                f"onnx_chainer.export: filename must be a path or a file object, got {type(filename).__name__}"
            )

    if return_named_inout:
        return (
            onnx_model,
            collections.OrderedDict(named_inputs),
            collections.OrderedDict(named_outputs),
        )
    return onnx_model


def _missing(node: Any, function: Any) -> str:
    raise AssertionError(f"onnx_chainer.export: an input of {function.label} has no name (graph walk bug)")


def _as_node_list(result: Any, func_name: str) -> list[onnx.NodeProto]:
    if isinstance(result, onnx.NodeProto):
        return [result]
    if isinstance(result, (list, tuple)) and all(isinstance(n, onnx.NodeProto) for n in result):
        return list(result)
    raise TypeError(
        f"onnx_chainer.export: the converter of {func_name} must return an onnx.NodeProto or a list of them, "
        f"got {type(result).__name__}"
    )
