"""Helpers for writing converters: node naming, node building, tensor files.

While :func:`onnx_chainer.export` converts one function node it sets the name of that
node (``'LinearFunction_0'``, ``'ReLU_1'``...) with :func:`set_func_name`; the helpers
here derive the names of the ONNX nodes and temporary values a converter creates from
it, so every name in the exported graph is unique and says where it came from.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy
import onnx
import onnx.checker
import onnx.helper
import onnx.numpy_helper

from chainer import utils

__all__ = [
    "GraphBuilder",
    "cleanse_param_name",
    "get_func_name",
    "is_support_non_standard_domain",
    "make_node",
    "set_func_name",
    "write_tensor_pb",
]


class _State(threading.local):
    def __init__(self) -> None:
        self.func_name = ""
        # Per function name: how many node names were handed out (make_node).
        self.counts: dict[str, int] = {}


_state = _State()


def set_func_name(func_name: str) -> None:
    """Set the name of the Chainer function being converted.

    Args:
        func_name: The unique name of the function node in the exported graph, e.g.
            ``'Convolution2DFunction_0'``.
    """
    if not isinstance(func_name, str):
        raise TypeError(f"onnx_chainer.onnx_helper.set_func_name: expected a str, got {type(func_name).__name__}")
    _state.func_name = func_name


def get_func_name() -> str:
    """Return the name of the Chainer function being converted (see :func:`set_func_name`)."""
    return _state.func_name


def _reset_names() -> None:
    _state.func_name = ""
    _state.counts = {}


def _unique_node_name(prefix: str) -> str:
    count = _state.counts.get(prefix, 0)
    _state.counts[prefix] = count + 1
    return prefix if count == 0 else f"{prefix}_{count}"


def make_node(*args: Any, **kwargs: Any) -> onnx.NodeProto:
    """A thin wrapper of :func:`onnx.helper.make_node` that names the node.

    Takes the arguments of :func:`onnx.helper.make_node` (``op_type, inputs, outputs,
    name=None, doc_string=None, domain=None, **attributes``). Without ``name`` the node
    is named after the function being converted (:func:`get_func_name`), made unique.

    Returns:
        The :class:`onnx.NodeProto`.
    """
    if kwargs.get("name") is None:
        kwargs["name"] = _unique_node_name(get_func_name() or "node")
    return onnx.helper.make_node(*args, **kwargs)


def cleanse_param_name(name: str) -> str:
    """Converts Chainer parameter names to ONNX names.

    The path of a parameter in its model (``'/l1/W'``) becomes ``'param_l1_W'``: ONNX
    tools handle ``/`` badly in value names.

    Args:
        name: A parameter path as :meth:`chainer.Link.namedparams` yields it.

    Returns:
        The ONNX name.
    """
    if not isinstance(name, str):
        raise TypeError(f"onnx_chainer.onnx_helper.cleanse_param_name: expected a str, got {type(name).__name__}")
    return "param" + name.replace("/", "_")


@functools.cache
def is_support_non_standard_domain() -> bool:
    """Whether the installed ``onnx`` checker accepts operators of a custom domain.

    A checker that does accepts a model whose custom operators are in a domain of their
    own (declared in ``external_opset_imports``) without a schema for them; operators of
    the default domain must always be registered ones. The answer comes from checking a
    one-node model with such an operator.
    """
    node = onnx.helper.make_node("Custom", ["x"], ["y"], domain="onnx_chainer.probe")
    value = onnx.helper.make_tensor_value_info
    graph = onnx.helper.make_graph(
        [node], "probe", [value("x", onnx.TensorProto.FLOAT, [1])], [value("y", onnx.TensorProto.FLOAT, [1])]
    )
    model = onnx.helper.make_model(
        graph, opset_imports=[onnx.helper.make_opsetid("", 7), onnx.helper.make_opsetid("onnx_chainer.probe", 1)]
    )
    model.ir_version = 4
    try:
        onnx.checker.check_model(model)
    except onnx.checker.ValidationError:
        return False
    return True


def write_tensor_pb(filename: str | os.PathLike[str], name: str, value: Any) -> None:
    """Write an array as a serialized :class:`onnx.TensorProto` named ``name``.

    The file is written atomically (a temporary file renamed over ``filename``).

    Args:
        filename: Destination path (``.pb``).
        name: Name stored in the tensor.
        value: A NumPy array (or anything :func:`numpy.asarray` accepts; CuPy arrays
            and Variables are copied to the host).
    """
    from chainer.backends import cuda

    array = numpy.asarray(cuda.to_cpu(getattr(value, "array", value)))
    tensor = onnx.numpy_helper.from_array(array, name)
    _write_bytes_atomic(filename, tensor.SerializeToString())


def _write_bytes_atomic(filename: str | os.PathLike[str], data: bytes) -> None:
    path = os.fspath(filename)
    tmp = utils.make_temporary(path)
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


class GraphBuilder:
    """A helper class to build consecutive ONNX nodes.

    Converters that emit several nodes chain them through temporary values that the
    builder names after the function being converted::

        gb = onnx_helper.GraphBuilder()
        h = gb.op('Mul', [x, x])
        gb.op('Sqrt', [h])
        return gb.nodes(output_names)   # the last node writes the converter's outputs
    """

    def __init__(self) -> None:
        self.func_name = get_func_name() or "node"
        self._nodes: list[onnx.NodeProto] = []

    def node_name(self) -> str:
        """A fresh unique name for a node or a temporary value (``<function>_tmp_<n>``).

        The count is shared by every builder of the function being converted, so two
        builders of one converter never hand out the same name.
        """
        key = f"{self.func_name}_tmp"
        count = _state.counts.get(key, 0)
        _state.counts[key] = count + 1
        return f"{key}_{count}"

    def op(self, op_name: str, input_names: Sequence[str], num_outputs: int = 1, **kwargs: Any) -> Any:
        """Add a node whose outputs get fresh names.

        Args:
            op_name: ONNX operator type (``'Add'``).
            input_names: Names of its inputs (``''`` for an omitted optional input).
            num_outputs: Number of outputs.
            **kwargs: Attributes (``domain=`` selects a custom domain).

        Returns:
            The output name, or a tuple of names when ``num_outputs != 1``.
        """
        names = [self.node_name() for _ in range(num_outputs)]
        self.op_output_named(op_name, input_names, names, **kwargs)
        return names[0] if num_outputs == 1 else tuple(names)

    def op_output_named(
        self, op_name: str, input_names: Sequence[str], output_names: Sequence[str], **kwargs: Any
    ) -> onnx.NodeProto:
        """Add a node writing to the given output names; returns the node."""
        node = onnx.helper.make_node(op_name, list(input_names), list(output_names), name=self.node_name(), **kwargs)
        self._nodes.append(node)
        return node

    def nodes(self, output_names: Sequence[str] | None = None) -> list[onnx.NodeProto]:
        """All nodes built so far.

        Args:
            output_names: If given, the outputs of the last node are renamed to these
                (the converter's output names), which is how a chain ends.
        """
        if output_names is not None:
            if not self._nodes:
                raise ValueError(f"GraphBuilder.nodes ({self.func_name}): no node was built")
            last = self._nodes[-1]
            if len(last.output) != len(output_names):
                raise ValueError(
                    f"GraphBuilder.nodes ({self.func_name}): the last node has {len(last.output)} output(s), "
                    f"got {len(output_names)} name(s)"
                )
            del last.output[:]
            last.output.extend(output_names)
        return list(self._nodes)
