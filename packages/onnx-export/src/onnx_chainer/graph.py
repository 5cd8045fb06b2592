"""The computational graph of one forward pass, converted to ONNX nodes."""

from __future__ import annotations

import collections
from collections.abc import Mapping, Sequence
from typing import Any

import onnx

import chainer
from chainer.backends import cuda
from onnx_chainer import onnx_helper
from onnx_chainer.functions import converter as converter_module

__all__ = ["Graph"]


def _function_key(function: Any) -> str:
    return getattr(function, "custom_function_node_name", None) or type(function).__name__


def _as_node_list(result: Any, func_name: str) -> list[onnx.NodeProto]:
    if isinstance(result, onnx.NodeProto):
        return [result]
    if isinstance(result, (list, tuple)) and all(isinstance(n, onnx.NodeProto) for n in result):
        return list(result)
    raise TypeError(
        f"onnx_chainer.export: the converter of {func_name} must return an onnx.NodeProto or a sequence of them, "
        f"got {type(result).__name__}"
    )


class Graph:
    """The function nodes the outputs of a forward pass depend on, converted to ONNX.

    Function nodes are converted in the order they were applied and named after their
    class and that order (``LinearFunction_0``, ``ReLU_0``, ``LinearFunction_1``); an
    output of a function gets the function's name (``<name>_<i>`` when it has several).
    Leaves of the graph that are not network inputs become initializers: parameters of
    the model under their path (``param_l1_W``), persistent arrays likewise
    (``param_bn_avg_mean``), other arrays under ``<function name>_in<index>``.

    Args:
        context: The :class:`~onnx_chainer.context.Context` of the export; the network
            inputs and explicitly named outputs are named in it already (pinned).
        converters: ``{function node name: converter(params)}``.
        opset_version: The ai.onnx opset.
        network_inputs: The variables fed to the model.
        network_outputs: The variables it returned.
        applied: ``{id(function node): position}`` in the order the functions were
            applied (functions missing from it come first, by rank).
    """

    def __init__(
        self,
        context: Any,
        converters: Mapping[str, Any],
        opset_version: int,
        network_inputs: Sequence[chainer.Variable],
        network_outputs: Sequence[chainer.Variable],
        applied: Mapping[int, int],
    ) -> None:
        self.context = context
        self.converters = converters
        self.opset_version = opset_version
        self.network_inputs = list(network_inputs)
        self.network_outputs = list(network_outputs)
        self.applied = applied
        self.nodes: list[onnx.NodeProto] = []
        self._input_ids = {id(v.node) for v in self.network_inputs}
        #: Parameters met in the graph, by name (graph inputs with export_params=False).
        self.parameters: dict[str, Any] = {}

    def _functions(self) -> list[Any]:
        """The function nodes the outputs depend on, in the order they were applied."""
        seen: dict[int, Any] = {}
        stack = [v.node.creator_node for v in self.network_outputs if v.node.creator_node is not None]
        while stack:
            function = stack.pop()
            if id(function) in seen:
                continue
            seen[id(function)] = function
            for node in function.inputs or ():
                if (
                    node.creator_node is not None
                    and id(node.creator_node) not in seen
                    and id(node) not in self._input_ids
                ):
                    stack.append(node.creator_node)
        applied = self.applied
        return sorted(seen.values(), key=lambda f: (id(f) in applied, applied.get(id(f), f.rank), f.rank))

    def _name_leaf(self, node: Any, index: int) -> str:
        """Name a leaf of the graph (a parameter or a constant) and make it an initializer."""
        ctx = self.context
        if id(node) in ctx.name_list:
            return ctx.name_list[id(node)]
        var = node.get_variable_or_none()
        pname = ctx.param_name(var) if var is not None else None
        if pname is None and isinstance(var, chainer.Parameter):
            pname = ctx._fresh("param")
        if pname is not None:
            if var.array is None:
                raise ValueError(f"onnx_chainer.export: the parameter {pname!r} is not initialized")
            name = ctx._add_initializer(var.array, pname, True)
            ctx.set_name(node, name)
            self.parameters[name] = var.array
            return name
        if var is not None:
            array = var.array
        elif node.data is not None:
            array = node.data
        else:
            raise ValueError(
                f"onnx_chainer.export: input {index} of {onnx_helper.get_func_name()} is a constant whose value "
                "is gone; keep the variable alive during the forward pass"
            )
        cname = ctx.persistent_name(array)
        name = ctx._add_initializer(array, cname or f"{onnx_helper.get_func_name()}_in{index}", False)
        if cname is None:
            ctx.implicit_inputs.add(name)
        ctx.set_name(node, name)
        return name

    def _output_names(self, function: Any, func_name: str) -> list[str]:
        ctx = self.context
        names = []
        n_out = len(function.outputs)
        for i, ref in enumerate(function.outputs):
            node = ref()
            default = func_name if n_out == 1 else f"{func_name}_{i}"
            if node is None:
                # An output nobody kept: it still needs a name of its own.
                name = ctx._fresh(default)
                ctx._used.add(name)
            elif id(node) in ctx.name_list:
                name = ctx.name_list[id(node)]
            else:
                ctx.set_name(node, ctx._fresh(default))
                name = ctx.name_list[id(node)]
            names.append(name)
        return names

    def convert(self) -> list[onnx.NodeProto]:
        """Convert the function nodes; returns the ONNX nodes (also kept in :attr:`nodes`)."""
        ctx = self.context
        counts: collections.Counter[str] = collections.Counter()
        for function in self._functions():
            key = _function_key(function)
            func_name = f"{key}_{counts[key]}"
            counts[key] += 1
            onnx_helper.set_func_name(func_name)
            in_names = []
            for index, node in enumerate(function.inputs):
                if node.creator_node is None and id(node) not in self._input_ids:
                    in_names.append(self._name_leaf(node, index))
                else:
                    in_names.append(ctx.name_list[id(node)])
            out_names = self._output_names(function, func_name)
            converter = self.converters.get(key)
            if converter is None:
                raise ValueError(
                    f"onnx_chainer.export: no ONNX converter for the function node {key!r} ({func_name}, "
                    f"{type(function).__module__}.{type(function).__qualname__}); pass one with "
                    f"external_converters={{{key!r}: converter}} or register it through the "
                    "chainer_register_onnx_converters plugin hook"
                )
            params = converter_module.FunctionConverterParams(function, self.opset_version, in_names, out_names, ctx)
            self.nodes.extend(_as_node_list(converter(params), func_name))
        return self.nodes

    def alias_output(self, variable: chainer.Variable, name: str) -> None:
        """Make the graph output ``name`` a copy (``Identity``) of ``variable``: for an
        output that is an input, a constant or another output."""
        ctx = self.context
        onnx_helper.set_func_name(name)
        node = variable.node
        if id(node) in ctx.name_list:
            source = ctx.name_list[id(node)]
        else:
            source = ctx.add_const(cuda.to_cpu(variable.array), "value")
        self.nodes.append(onnx_helper.make_node("Identity", [source], [name]))
