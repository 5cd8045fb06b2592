"""``onnx_chainer.export``: run a model once and write its computational graph as ONNX.

The model's forward runs on the given inputs with backprop enabled, so every function
applied records itself in the graph. A :class:`RetainInputHook` active during that run
keeps the constants fed to the graph alive and notes the order functions are applied.
The graph is then walked from the outputs (:class:`onnx_chainer.graph.Graph`): function
nodes become ONNX nodes through the converter registered for their name, parameters of
the model become initializers named after their path, other leaves constants.
"""

from __future__ import annotations

import collections
import io
import os
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy
import onnx
import onnx.checker
import onnx.helper
import onnx.numpy_helper
import onnx.shape_inference

import chainer
from chainer.backends import cuda
from onnx_chainer import _arrays, _export_parts, _version, mapping, onnx_helper
from onnx_chainer import context as context_module
from onnx_chainer import graph as graph_module

__all__ = [
    "MAXIMUM_OPSET_VERSION",
    "MINIMUM_OPSET_VERSION",
    "RetainInputHook",
    "check_onnx_model",
    "convert_parameter",
    "export",
    "format_customized_shapes",
    "rename_variable_name",
]

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

# The oldest onnx whose operator schemas and helpers this package uses.
_MINIMUM_ONNX_VERSION = (1, 16)


def _ir_version(opset_version: int) -> int:
    for last_opset, ir in _IR_VERSIONS:
        if opset_version <= last_opset:
            return ir
    raise AssertionError(opset_version)


def _default_opset_version() -> int:
    return min(onnx.defs.onnx_opset_version(), MAXIMUM_OPSET_VERSION)


def _check_available() -> None:
    """Raise ``ImportError`` unless the installed ``onnx`` is one this package can use."""
    parts = []
    for part in onnx.__version__.split(".")[:2]:
        digits = "".join(c for c in part if c.isdigit())
        parts.append(int(digits or 0))
    if tuple(parts) < _MINIMUM_ONNX_VERSION:
        needed = ".".join(map(str, _MINIMUM_ONNX_VERSION))
        raise ImportError(f"onnx_chainer needs onnx>={needed}, but onnx {onnx.__version__} is installed")


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
        name = context._fresh("param")
        context._used.add(name)
        return onnx.numpy_helper.from_array(_to_numpy(parameter), name)
    raise TypeError(
        f"onnx_chainer.convert_parameter: expected a chainer.Variable or an array, got {type(parameter).__name__}"
    )


def _flatten_variables(value: Any) -> list[Any]:
    return [v for v in _arrays.flatten(value) if isinstance(v, chainer.Variable)]


class RetainInputHook(chainer.LinkHook, chainer.FunctionHook):
    """Keeps alive the constants a forward pass feeds to its functions.

    The values a model creates during its forward and passes to functions (a
    ``chainer.Variable(numpy.array(7))``, an array converted with ``as_variable``, an
    array given to a function directly) are leaves of the computational graph that
    nothing else keeps; the exporter needs their values after the forward. Inside
    ``with RetainInputHook() as hook:`` every such leaf variable a function receives is
    appended to :attr:`retain_inputs`, once. Variables given to the outermost link call
    (the model's own inputs) are not: the caller holds them.

    Attributes:
        retain_inputs: The retained leaf variables, in the order they were first used.

    Example:
        >>> from onnx_chainer.export import RetainInputHook
        >>> model = chainer.Sequential(lambda x: x + chainer.Variable(np.ones(2, 'f')))
        >>> with RetainInputHook() as hook:
        ...     y = model(chainer.Variable(np.zeros(2, 'f')))
        >>> len(hook.retain_inputs)
        1
    """

    name = "onnx_chainer.RetainInputHook"
    # Asks FunctionNode.apply to record functions none of whose inputs requires grad
    # too (Chainer 7.8.1 recorded every function applied with backprop enabled), so
    # that a computation on arrays the model made still shows in the exported graph.
    _record_all_functions = True

    def __init__(self) -> None:
        self.retain_inputs: list[chainer.Variable] = []
        self._retained_ids: set[int] = set()
        self._link_input_ids: set[int] = set()
        self._link_depth = 0
        # Every function applied, in order; kept so that no id in _applied is reused.
        self._functions: list[Any] = []
        self._applied: dict[int, int] = {}

    def __enter__(self) -> RetainInputHook:
        chainer.FunctionHook.__enter__(self)
        try:
            chainer.LinkHook.__enter__(self)
        except BaseException:
            chainer.FunctionHook.__exit__(self, None, None, None)
            raise
        return self

    def __exit__(self, *exc_info: Any) -> None:
        try:
            chainer.LinkHook.__exit__(self, *exc_info)
        finally:
            chainer.FunctionHook.__exit__(self, *exc_info)

    def added(self, target: Any = None) -> None:
        pass

    def deleted(self, target: Any = None) -> None:
        pass

    # -- link hook ------------------------------------------------------------------------

    def forward_preprocess(self, *args: Any) -> None:
        if len(args) != 1:
            return  # the function hook's forward_preprocess(function, in_data)
        if self._link_depth == 0:
            call = args[0]
            for var in _flatten_variables(list(call.args)) + _flatten_variables(dict(call.kwargs)):
                self._link_input_ids.add(id(var))
        self._link_depth += 1

    def forward_postprocess(self, *args: Any) -> None:
        if len(args) == 1:
            self._link_depth -= 1

    def _forward_aborted(self, args: Any) -> None:
        self._link_depth -= 1

    # -- function hook ----------------------------------------------------------------------

    def _observe_apply(self, function: Any, input_vars: Sequence[Any], outputs: Any) -> None:
        self._applied[id(function)] = len(self._functions)
        self._functions.append(function)
        for var in input_vars:
            if var.creator_node is not None or id(var) in self._retained_ids or id(var) in self._link_input_ids:
                continue
            self._retained_ids.add(id(var))
            self.retain_inputs.append(var)


def rename_variable_name(
    context: context_module.Context,
    variables: Any,
    named_vars: collections.OrderedDict[str, Any],
    new_names: Any,
    prefix: str | None = "Input",
) -> None:
    """Name the inputs or outputs of the graph and collect them into ``named_vars``.

    Args:
        context: The :class:`~onnx_chainer.context.Context` of the export; the names
            are set in it, pinned.
        variables: A tuple/list of variables, or a dict of them.
        named_vars: The ordered dict to add ``name: variable`` to, in order.
        new_names: ``None``; a name (one variable), or a list/tuple of names, one per
            variable; or a dict from a key of ``variables`` (a dict) or a default name
            to the new name (keys left out keep their name).
        prefix: Default names are ``<prefix>_<i>`` (for a dict, its keys); with
            ``None`` a variable keeps the name it has in the context.

    Raises:
        ValueError: ``new_names`` does not match the variables.
    """
    if isinstance(variables, Mapping):
        keys = [str(k) for k in variables]
        values = list(variables.values())
        defaults = keys if prefix is not None else [None] * len(values)
    else:
        values = list(variables)
        keys = [f"{prefix}_{i}" for i in range(len(values))] if prefix is not None else [None] * len(values)
        defaults = keys
    defaults = [d if d is not None else context.get_name(v) for d, v in zip(defaults, values)]
    what = "input" if prefix == "Input" else "output"
    if new_names is None:
        names = defaults
    elif isinstance(new_names, str):
        new_names = [new_names]
    if new_names is not None and isinstance(new_names, Mapping):
        lookup = keys if isinstance(variables, Mapping) else defaults
        unknown = [k for k in new_names if k not in lookup]
        if unknown:
            raise ValueError(
                f"onnx_chainer.export: {what}_names has unknown key(s) {unknown}; the {what}s are {lookup}"
            )
        names = [str(new_names.get(k, d)) for k, d in zip(lookup, defaults)]
    elif new_names is not None:
        if not isinstance(new_names, Sequence):
            raise ValueError(
                f"onnx_chainer.export: {what}_names must be a list, tuple or dict, got {type(new_names).__name__}"
            )
        if len(new_names) != len(values):
            raise ValueError(
                f"onnx_chainer.export: {what}_names has {len(new_names)} name(s) but the model has "
                f"{len(values)} {what}(s)"
            )
        names = [str(n) for n in new_names]
    if len(set(names)) != len(names):
        raise ValueError(f"onnx_chainer.export: the {what} names must be unique, got {names}")
    for name, var in zip(names, values):
        named_vars[name] = var


def format_customized_shapes(args: Any, shapes: Any) -> Any:
    """Check ``input_shapes`` against the model's inputs and give one shape per input.

    Args:
        args: The inputs as :func:`export` takes them (an array, a list/tuple, a dict).
        shapes: A shape (a tuple of ints and names of symbolic dimensions such as
            ``('batch', 3, 224, 224)``) for a single input, or a list of shapes (one per
            input), or for a dict input a dict of shapes with its keys.

    Returns:
        A list of shapes in the order of the inputs.

    Raises:
        ValueError: A shape that is not a tuple or list, a count or a rank that does not
            match, or an unknown key.
    """

    def check(shape: Any, array: Any, where: str) -> tuple[Any, ...]:
        if not isinstance(shape, (tuple, list)):
            raise ValueError(f"onnx_chainer.export: input_shapes{where} must be a tuple, got {shape!r}")
        if len(shape) != array.ndim:
            raise ValueError(
                f"onnx_chainer.export: input_shapes{where} {tuple(shape)} has {len(shape)} dimension(s) but the "
                f"input has {array.ndim} (shape {array.shape})"
            )
        for dim in shape:
            if not isinstance(dim, (int, str)) or isinstance(dim, bool):
                raise ValueError(
                    f"onnx_chainer.export: the dimensions of input_shapes{where} are ints or names, got {dim!r}"
                )
        return tuple(shape)

    def array_of(value: Any) -> Any:
        return value.array if isinstance(value, chainer.Variable) else value

    if isinstance(args, Mapping):
        keys = list(args)
        arrays = [array_of(v) for v in args.values()]
        if isinstance(shapes, Mapping):
            unknown = [k for k in shapes if k not in args]
            missing = [k for k in keys if k not in shapes]
            if unknown or missing:
                raise ValueError(
                    f"onnx_chainer.export: input_shapes must have the keys of the inputs {keys}, got {list(shapes)}"
                )
            return [check(shapes[k], a, f"[{k!r}]") for k, a in zip(keys, arrays)]
        shape_list = shapes
    elif isinstance(args, (list, tuple)):
        arrays = [array_of(v) for v in args]
        shape_list = shapes
    else:
        arrays = [array_of(args)]
        if isinstance(shapes, tuple):
            return [check(shapes, arrays[0], "")]
        shape_list = shapes
    if not isinstance(shape_list, list) or (isinstance(args, Mapping) is False and not arrays):
        raise ValueError(f"onnx_chainer.export: input_shapes must be a list of shapes, one per input, got {shapes!r}")
    if len(shape_list) != len(arrays):
        raise ValueError(
            f"onnx_chainer.export: input_shapes has {len(shape_list)} shape(s) but the model has {len(arrays)} input(s)"
        )
    return [check(s, a, f"[{i}]") for i, (s, a) in enumerate(zip(shape_list, arrays))]


def check_onnx_model(onnx_model: onnx.ModelProto, external_converters: Any, external_opset_imports: Any) -> None:
    """Check the exported model with the ONNX checker.

    A model with external converters may hold operators the checker does not know;
    then a failed check is a ``UserWarning`` rather than an error (operators of a custom
    domain declared in ``external_opset_imports`` pass the checker of current onnx, see
    :func:`~onnx_chainer.onnx_helper.is_support_non_standard_domain`).

    Raises:
        onnx.checker.ValidationError: The model is invalid and no external converter
            was used.
    """
    try:
        onnx.checker.check_model(onnx_model)
    except onnx.checker.ValidationError as exc:
        if not external_converters:
            raise
        domains = sorted(external_opset_imports or {})
        warnings.warn(
            "onnx_chainer.export: the ONNX checker rejects the model, which has operators of external "
            f"converters (custom domains: {domains or 'none'}); it is saved unchecked: {exc}",
            UserWarning,
            stacklevel=3,
        )


def _export(
    model: Any,
    args: Any,
    filename: Any,
    export_params: bool,
    graph_name: str,
    save_text: bool,
    opset_version: int,
    input_names: Any,
    output_names: Any,
    return_named_inout: bool,
    external_converters: Mapping[str, Any] | None,
    external_opset_imports: Mapping[str, int] | None,
    input_shapes: Any,
) -> Any:
    if input_shapes is not None:
        input_shapes = format_customized_shapes(args, input_shapes)
    external_converters = dict(external_converters or {})
    for key, conv in external_converters.items():
        if not callable(conv):
            raise TypeError(f"onnx_chainer.export: external_converters[{key!r}] is not callable")

    positional, keyword, inputs = _export_parts.flatten_args(args)
    hook = RetainInputHook()
    saved = _export_parts.snapshot_persistents(model)
    try:
        with chainer.using_config("enable_backprop", True), mapping.patch_functions(), hook:
            outputs = model(*positional, **keyword)
    finally:
        _export_parts.restore_persistents(saved)
    outputs = _export_parts.check_outputs(outputs)
    _export_parts.warn_uninitialized(model)

    onnx_helper._reset_names()
    ctx = context_module.Context(model)
    ctx.opset_version = opset_version
    network_inputs: collections.OrderedDict[str, Any] = collections.OrderedDict()
    rename_variable_name(ctx, inputs, network_inputs, input_names, prefix="Input")
    for name, var in network_inputs.items():
        ctx.set_name(var, name, pinned=True)
    input_ids = {id(var.node) for var in network_inputs.values()}

    # Outputs named explicitly take their names now, so their functions write to them;
    # the others are named after their functions during the conversion.
    output_list = list(outputs.values()) if isinstance(outputs, dict) else list(outputs)
    explicit: collections.OrderedDict[str, Any] = collections.OrderedDict()
    if output_names is not None:
        rename_variable_name(ctx, outputs, explicit, output_names, prefix="Output")
    explicit_names = list(explicit)
    claimed: set[int] = set()
    aliases: dict[int, bool] = {}
    for i, var in enumerate(output_list):
        node = var.node
        alias = node.creator_node is None or id(node) in input_ids or id(node) in claimed
        aliases[i] = alias
        claimed.add(id(node))
        if not alias and explicit_names:
            ctx.set_name(var, explicit_names[i], pinned=True)

    converters = {name: mapping.registered_converters.get(name) for name in mapping.registered_converters}
    converters.update(external_converters)
    graph = graph_module.Graph(
        ctx, converters, opset_version, list(network_inputs.values()), output_list, hook._applied
    )
    graph.convert()

    network_outputs: collections.OrderedDict[str, Any] = collections.OrderedDict()
    for i, var in enumerate(output_list):
        if explicit_names:
            name = explicit_names[i]
        elif aliases[i]:
            name = ctx._fresh(f"Output_{i}")
            ctx._used.add(name)
        else:
            name = ctx.name_list[id(var.node)]
        if aliases[i]:
            graph.alias_output(var, name)
        network_outputs[name] = var

    nodes = graph.nodes
    _export_parts.prune(nodes, ctx, list(network_outputs))
    shapes = input_shapes or [None] * len(network_inputs)
    graph_inputs = [
        _export_parts.value_info(name, var.array, s) for (name, var), s in zip(network_inputs.items(), shapes)
    ]
    if not export_params:
        graph_inputs += [
            _export_parts.value_info(name, array)
            for name, array in graph.parameters.items()
            if ctx.value_of(name) is not None
        ]
    symbolic = input_shapes is not None and any(isinstance(d, str) for s in input_shapes for d in s)
    graph_outputs = [
        _export_parts.value_info(name, var.array, [None] * var.ndim if symbolic else None)
        for name, var in network_outputs.items()
    ]
    onnx_graph = onnx.helper.make_graph(
        ctx.constants + nodes, graph_name, graph_inputs, graph_outputs, ctx.initializers(export_params)
    )
    opset_imports = [onnx.helper.make_opsetid("", opset_version)]
    for domain, version in (external_opset_imports or {}).items():
        opset_imports.append(onnx.helper.make_opsetid(domain, version))
    onnx_model = onnx.helper.make_model(
        onnx_graph,
        opset_imports=opset_imports,
        producer_name="Chainer",
        producer_version=chainer.__version__,
        doc_string=f"exported by onnx_chainer {_version.__version__}",
    )
    onnx_model.ir_version = _ir_version(opset_version)
    if symbolic:
        inferred = _export_parts.symbolic_outputs(onnx_model, len(graph_outputs))
        if inferred:
            del onnx_model.graph.output[:]
            onnx_model.graph.output.extend(inferred)
    check_onnx_model(onnx_model, external_converters, external_opset_imports)

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
        return onnx_model, network_inputs, network_outputs
    return onnx_model


def export(
    model: Any,
    args: Any,
    filename: Any = None,
    export_params: bool = True,
    graph_name: str = "Graph",
    save_text: bool = False,
    opset_version: int | None = None,
    input_names: Any = None,
    output_names: Any = None,
    train: bool = False,
    return_named_inout: bool = False,
    external_converters: Mapping[str, Any] | None = None,
    external_opset_imports: Mapping[str, int] | None = None,
    input_shapes: Any = None,
    no_testcase: bool = False,
) -> Any:
    """Export function for chainer.Chain in ONNX format.

    Runs ``model(*args)`` once (``model(**args)`` for a dict) with backprop enabled and
    converts the computational graph it records. Function nodes are converted by the
    converter registered for their class name (see :mod:`onnx_chainer.mapping`);
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
        input_names: Names of the graph inputs: a list (one per input), or a dict from
            the default name (``Input_0`` ..., or the keys of a dict ``args``) to the new
            one. Default ``Input_<i>`` (the keys for a dict ``args``).
        output_names: Names of the graph outputs: a list, or a dict from the keys of a
            dict the model returns. Default: the name of the function node that made
            the output (``LinearFunction_1``; ``<name>_<i>`` for a function of several
            outputs).
        train: Value of ``chainer.config.train`` during the forward pass.
        return_named_inout: Also return the inputs and outputs by ONNX name.
        external_converters: ``{function node name: converter}`` used before the
            registered converters; a converter is called as ``converter(params)`` with
            a :class:`~onnx_chainer.functions.converter.FunctionConverterParams` and
            returns ONNX node(s).
        external_opset_imports: ``{domain: version}`` for custom operators that
            external converters emit.
        input_shapes: Shapes to declare for the inputs instead of those of ``args``,
            with names for symbolic dimensions: ``('batch', 3, 224, 224)`` for one input,
            a list of shapes, or a dict for a dict ``args``. Shapes that the graph
            fixes (a ``Reshape`` to the recorded shape, say) stay fixed.
        no_testcase: Accepted for compatibility with Chainer 7.8.1, where a future
            version was to write test data next to ``filename`` unless it was set;
            this function never writes test data (see
            :func:`~onnx_chainer.export_testcase`).

    Returns:
        The :class:`onnx.ModelProto`; with ``return_named_inout`` the tuple
        ``(model, inputs, outputs)`` where ``inputs``/``outputs`` are ordered dicts from
        ONNX names to the variables used and produced.

    Raises:
        RuntimeError: The model returned something other than variables or a
            list, tuple or dict.
        ValueError: A list, tuple or dict output holds something other than
            variables; names or shapes that do not match the inputs or outputs; a
            function node that cannot be exported at ``opset_version``.

    Example:
        >>> import onnx_chainer
        >>> model = chainer.Sequential(L.Linear(3, 2), F.relu)
        >>> onnx_model = onnx_chainer.export(model, np.zeros((1, 3), 'f'))
        >>> [n.op_type for n in onnx_model.graph.node], onnx_model.graph.output[0].name
        (['Gemm', 'Relu'], 'ReLU_0')
    """
    _check_available()
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
    with chainer.using_config("train", train):
        return _export(
            model,
            args,
            filename,
            export_params,
            graph_name,
            save_text,
            opset_version,
            input_names,
            output_names,
            return_named_inout,
            external_converters,
            external_opset_imports,
            input_shapes,
        )
