"""The naming context of one export: which ONNX name each value of the graph has."""

from __future__ import annotations

from typing import Any

import numpy
import onnx
import onnx.numpy_helper

import chainer
from chainer.backends import cuda
from onnx_chainer import _arrays, onnx_helper

__all__ = ["Context"]


def _to_numpy(array: Any) -> numpy.ndarray:
    return numpy.asarray(cuda.to_cpu(array))


def _tensor_from_array_for_constant(array: Any, name: str) -> onnx.TensorProto:
    """The value of a ``Constant`` node: ``array`` (NumPy, CuPy or a Python scalar) as a
    :class:`onnx.TensorProto` named ``name``."""
    return onnx.numpy_helper.from_array(_to_numpy(array), name)


def _node_of(variable: Any) -> Any:
    """The graph node a name is attached to (a Variable's node, or the node itself)."""
    if isinstance(variable, chainer.Variable):
        return variable.node
    if isinstance(variable, chainer.variable.VariableNode):
        return variable
    raise TypeError(
        f"onnx_chainer.context.Context: expected a chainer.Variable or VariableNode, got {type(variable).__name__}"
    )


class Context:
    """Context of converter: the names of the values of the graph being exported.

    Parameters of ``model`` are named after their path in it (``/l1/W`` becomes
    ``param_l1_W``, see :func:`~onnx_chainer.onnx_helper.cleanse_param_name`), and so
    are persistent arrays such as the running statistics of batch normalization
    (``param_bn_avg_mean``). Converters add the constants they need (shapes, axes,
    scales) with :meth:`add_const`, which become ``Constant`` nodes, and extra weights
    with :meth:`add_param`, which become initializers.

    Args:
        model: The :class:`chainer.Link` being exported (or any callable; then only
            the values met in its graph are named).
    """

    def __init__(self, model: Any) -> None:
        # id(node) -> name, with the nodes kept alive so an id is never reused.
        self.name_list: dict[int, str] = {}
        self._nodes: dict[int, Any] = {}
        self._pinned: set[int] = set()
        self._used: set[str] = set()
        # Initializers: (name, array, is_parameter) in the order they were added.
        self.parameters: list[tuple[str, numpy.ndarray, bool]] = []
        #: Names of the initializers holding arrays the forward pass fed to functions
        #: that are neither parameters of the model nor its persistent arrays.
        self.implicit_inputs: set[str] = set()
        #: The opset being exported (set by :func:`onnx_chainer.export`; ``None``: the newest).
        self.opset_version: int | None = None
        # The nodes that make each constant of add_const, by its name, in the order added.
        self._constant_nodes: dict[str, list[onnx.NodeProto]] = {}
        self._constant_values: dict[str, numpy.ndarray] = {}
        # id(Parameter) -> its link; id(persistent array) -> (name, array).
        self._param_links: dict[int, Any] = {}
        self._param_names: dict[int, str] = {}
        self._persistent_names: dict[int, tuple[str, Any]] = {}
        if isinstance(model, chainer.Link):
            for path, link in model.namedlinks():
                prefix = path.rstrip("/")
                for name in sorted(link._params):
                    param = getattr(link, name)
                    self._param_links[id(param)] = link
                    self._param_names[id(param)] = onnx_helper.cleanse_param_name(f"{prefix}/{name}")
                for name in sorted(link._persistent):
                    value = getattr(link, name, None)
                    if _arrays.is_array(value):
                        self._persistent_names[id(value)] = (onnx_helper.cleanse_param_name(f"{prefix}/{name}"), value)

    # -- names of graph values ---------------------------------------------------------

    def get_name(self, variable: Any) -> str:
        """The ONNX name of ``variable`` (a Variable, VariableNode or Parameter).

        A value met for the first time gets a fresh name: a parameter of the model its
        path, anything else ``v<N>``.
        """
        node = _node_of(variable)
        name = self.name_list.get(id(node))
        if name is not None:
            return name
        var = node.get_variable_or_none()
        if var is not None and id(var) in self._param_names:
            name = self._param_names[id(var)]
        else:
            name = self._fresh("v")
        self._set(node, name)
        return name

    def set_name(self, variable: Any, name: str, pinned: bool = False) -> None:
        """Name ``variable``; a ``pinned`` name (graph inputs and outputs) is never changed."""
        if not isinstance(name, str) or not name:
            raise ValueError(f"onnx_chainer.context.Context.set_name: expected a non-empty str, got {name!r}")
        node = _node_of(variable)
        if id(node) in self._pinned:
            return
        self._set(node, name)
        if pinned:
            self._pinned.add(id(node))

    def is_pinned(self, variable: Any) -> bool:
        """Whether ``variable`` has a pinned name (a graph input or output)."""
        return id(_node_of(variable)) in self._pinned

    def _set(self, node: Any, name: str) -> None:
        old = self.name_list.get(id(node))
        if old is not None:
            self._used.discard(old)
        self.name_list[id(node)] = name
        self._nodes[id(node)] = node
        self._used.add(name)

    def _fresh(self, prefix: str) -> str:
        name = prefix
        n = 0
        while name in self._used:
            n += 1
            name = f"{prefix}_{n}"
        return name

    def is_name_used(self, name: str) -> bool:
        """Whether ``name`` already names a value of the graph."""
        return name in self._used

    # -- parameters and constants ---------------------------------------------------------

    def get_link(self, param: Any) -> Any:
        """The :class:`chainer.Link` that owns ``param`` (``None`` if none of the model)."""
        return self._param_links.get(id(param))

    def param_name(self, param: Any) -> str | None:
        """The name of a parameter of the model, or ``None``."""
        return self._param_names.get(id(param))

    def persistent_name(self, array: Any) -> str | None:
        """The name of a persistent array of the model (``param_bn_avg_mean``), or ``None``."""
        entry = self._persistent_names.get(id(array))
        return None if entry is None or entry[1] is not array else entry[0]

    def _add_initializer(self, array: Any, name: str, is_parameter: bool) -> str:
        name = self._fresh(name)
        self._used.add(name)
        self.parameters.append((name, _to_numpy(array), is_parameter))
        return name

    def add_param(self, array: Any, name: str, use_original_name: bool = False) -> str:
        """Add a weight: an initializer (a graph input without value with ``export_params=False``).

        Args:
            array: The value.
            name: Its name; ``<function name>_param_<name>`` unless ``use_original_name``.
            use_original_name: Use ``name`` as it is (made unique if taken).

        Returns:
            The ONNX name to use as a node input.
        """
        if not use_original_name:
            name = f"{onnx_helper.get_func_name()}_param_{name}"
        return self._add_initializer(array, name, True)

    def add_const(self, array: Any, name: str) -> str:
        """Add a constant: a ``Constant`` node named ``<function name>_const_<name>``.

        Before opset 9 a ``Constant`` holds floating point values only: an integer or
        boolean constant is then a ``float64`` one and a ``Cast`` to its type.

        Returns:
            The ONNX name of its value, to use as a node input.
        """
        name = self._fresh(f"{onnx_helper.get_func_name()}_const_{name}")
        self._used.add(name)
        value = _to_numpy(array)
        self._constant_values[name] = value
        old_opset = self.opset_version is not None and self.opset_version < 9
        if old_opset and value.dtype.kind in "biu" and (value.size == 0 or numpy.abs(value).max() < 2**53):
            stored = f"{name}_float64"
            tensor = _tensor_from_array_for_constant(value.astype(numpy.float64), stored)
            elem_type = onnx.helper.np_dtype_to_tensor_dtype(value.dtype)
            self._constant_nodes[name] = [
                onnx.helper.make_node("Constant", [], [stored], name=stored, value=tensor),
                onnx.helper.make_node("Cast", [stored], [name], name=name, to=elem_type),
            ]
        else:
            tensor = _tensor_from_array_for_constant(value, name)
            self._constant_nodes[name] = [onnx.helper.make_node("Constant", [], [name], name=name, value=tensor)]
        return name

    @property
    def constants(self) -> list[onnx.NodeProto]:
        """The nodes that make the constants of :meth:`add_const`, in the order added."""
        return [node for nodes in self._constant_nodes.values() for node in nodes]

    def _drop_constants_except(self, used: set[str]) -> None:
        self._constant_nodes = {name: nodes for name, nodes in self._constant_nodes.items() if name in used}

    def value_of(self, name: str) -> numpy.ndarray | None:
        """The value of the constant or initializer ``name``, or ``None`` (a computed value)."""
        value = self._constant_values.get(name)
        if value is not None:
            return value
        for pname, array, _ in self.parameters:
            if pname == name:
                return array
        return None

    def initializers(self, export_params: bool = True) -> list[onnx.TensorProto]:
        """The initializers as tensors (without the parameters if not ``export_params``)."""
        return [
            onnx.numpy_helper.from_array(array, name)
            for name, array, is_param in self.parameters
            if export_params or not is_param
        ]
