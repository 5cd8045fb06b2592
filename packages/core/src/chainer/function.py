"""Old-style functions (:class:`Function`) and the backprop mode switches.

An old-style function computes both forward and backward on arrays. It is applied
through a :class:`FunctionAdapter`, a :class:`~chainer.FunctionNode` that calls it.
Its gradients are plain arrays, so it supports first-order backprop only; asking for a
second order through it raises an error instead of silently returning zeros.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

import numpy

from chainer import backend, configuration, function_node, variable
from chainer.utils import type_check


def no_backprop_mode() -> contextlib.AbstractContextManager[None]:
    """Context in which functions record no graph (saves memory at inference).

    Example:
        >>> x = chainer.Variable(np.ones(3, np.float32))
        >>> with chainer.no_backprop_mode():
        ...     y = F.relu(x)
        >>> y.creator is None
        True
    """
    return configuration.using_config("enable_backprop", False)


def force_backprop_mode() -> contextlib.AbstractContextManager[None]:
    """Context in which functions record the graph even inside :func:`no_backprop_mode`."""
    return configuration.using_config("enable_backprop", True)


class FunctionAdapter(function_node.FunctionNode):
    """The :class:`~chainer.FunctionNode` through which an old-style :class:`Function` runs."""

    def __init__(self, function: Function) -> None:
        super().__init__()
        self._function = function

    @property
    def function(self) -> Function:
        return self._function

    @property
    def _old_style_function(self) -> Function:
        return self._function

    @property
    def label(self) -> str:
        return self._function.label

    @property
    def _impl_name(self) -> str:
        return type(self._function).__name__

    def check_type_forward(self, in_types: Any) -> None:
        self._function.check_type_forward(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        # Old-style functions keep every input for backward unless they say otherwise.
        self.retain_inputs(tuple(range(len(inputs))))
        self._function._output_indexes_to_retain = None
        outputs = self._function.forward(inputs)
        retained = self._function._input_indexes_to_retain
        if retained is not None:
            self.retain_inputs(retained)
        if self._function._output_indexes_to_retain is not None:
            self.retain_outputs(self._function._output_indexes_to_retain)
        return outputs

    def backward(self, target_input_indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        inputs = self.inputs or ()
        retained = set(self._input_indexes_to_retain or ())
        in_data = tuple(x.data if i in retained else None for i, x in enumerate(inputs))
        # As in Chainer, a missing output gradient reaches the old-style backward as None.
        grad_arrays = tuple(None if gy is None else gy.array for gy in grad_outputs)
        function = self._function
        function._output_data_for_backward = self.output_data
        gxs = function.backward(in_data, grad_arrays)
        # Chainer accepts any sequence (a list is common); a bare array is a mistake.
        if not isinstance(gxs, Sequence) or isinstance(gxs, str):
            raise TypeError(f"{self.label}.backward must return a tuple of arrays, got {type(gxs).__name__}")
        if len(gxs) != len(inputs):
            raise ValueError(f"{self.label}.backward returned {len(gxs)} gradient(s) for {len(inputs)} input(s)")
        result = []
        for i in target_input_indexes:
            gx = gxs[i]
            if gx is None:
                result.append(None)
                continue
            if isinstance(gx, numpy.generic):
                gx = numpy.asarray(gx)
            elif not isinstance(gx, numpy.ndarray) and backend._entry_for_array_type(type(gx)) is None:
                raise TypeError(
                    f"{self.label}.backward returned a {type(gx).__name__} as the gradient of input {i}; "
                    "expected an array or None"
                )
            if configuration.config.enable_backprop:
                # Connect the gradient to everything it depends on, so that asking for a
                # second order reaches _OldStyleGrad and fails loudly.
                sources = [x.get_variable() for x in inputs] + [g for g in grad_outputs if g is not None]
                result.append(_OldStyleGrad(self.label).apply((gx, *sources))[0])
            else:
                result.append(variable.Variable(gx, requires_grad=False))
        return tuple(result)


class _OldStyleGrad(function_node.FunctionNode):
    """Carries an old-style gradient into a double-backprop graph, refusing a second order."""

    def __init__(self, label: str) -> None:
        self._function_label = label

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (inputs[0],)

    def backward(self, target_input_indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        raise NotImplementedError(
            f"{self._function_label} is an old-style chainer.Function, which supports first-order gradients "
            "only; rewrite it as a chainer.FunctionNode for double backprop"
        )


class Function:
    """Old-style differentiable function: forward and backward both on arrays.

    Subclasses implement :meth:`forward` and :meth:`backward` (or their ``_cpu`` /
    ``_gpu`` variants). Calling the instance applies it to variables and returns one
    variable (single output) or a tuple.
    """

    _node: FunctionAdapter | None = None
    _input_indexes_to_retain: tuple[int, ...] | None = None
    _output_indexes_to_retain: tuple[int, ...] | None = None
    _output_data_for_backward: tuple[Any, ...] = ()
    # Whether self._node has been applied (a node applied to constants records no outputs).
    _node_applied = False

    def __call__(self, *inputs: Any) -> Any:
        node = self.node
        # An old-style function may be called again; each call gets a fresh node.
        if self._node_applied or node.outputs is not None:
            node = self._node = FunctionAdapter(self)
        self._node_applied = True
        outputs = node.apply(inputs)
        return outputs[0] if len(outputs) == 1 else outputs

    @property
    def node(self) -> FunctionAdapter:
        """The :class:`FunctionAdapter` node of the latest application."""
        if self._node is None:
            self._node = FunctionAdapter(self)
        return self._node

    @property
    def inputs(self) -> tuple[variable.Variable, ...] | None:
        """The input variables of the latest application (``None`` before it or after :meth:`unchain`)."""
        nodes = self.node.inputs
        return None if nodes is None else tuple(n.get_variable() for n in nodes)

    @property
    def outputs(self) -> tuple[Any, ...]:
        """Weak references to the output variables' nodes of the latest application."""
        return self.node.outputs or ()

    @property
    def rank(self) -> int:
        return self.node.rank

    @property
    def stack(self) -> Any:
        return self.node.stack

    @property
    def label(self) -> str:
        return type(self).__name__

    @property
    def output_data(self) -> tuple[Any, ...]:
        """The output arrays kept by :meth:`retain_outputs`."""
        return self._output_data_for_backward or self.node.output_data

    @property
    def local_function_hooks(self) -> dict[str, Any]:
        return self.node.local_function_hooks

    def check_type_forward(self, in_types: type_check.TypeInfoTuple) -> None:
        """State preconditions with :func:`~chainer.utils.type_check.expect`."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        """Compute outputs; dispatches to :meth:`forward_gpu` for CuPy inputs, else :meth:`forward_cpu`."""
        if any(x is not None and type(x).__module__.startswith("cupy") for x in inputs):
            return self.forward_gpu(inputs)
        return self.forward_cpu(inputs)

    def forward_cpu(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        raise NotImplementedError(f"{self.label} implements neither forward() nor forward_cpu()")

    def forward_gpu(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        raise NotImplementedError(f"{self.label} implements neither forward() nor forward_gpu()")

    def backward(self, inputs: tuple[Any, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        """Gradient arrays of the inputs; dispatches like :meth:`forward`."""
        arrays = [x for x in (*inputs, *grad_outputs) if x is not None]
        if any(type(x).__module__.startswith("cupy") for x in arrays):
            return self.backward_gpu(inputs, grad_outputs)
        return self.backward_cpu(inputs, grad_outputs)

    def backward_cpu(self, inputs: tuple[Any, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(None for _ in inputs)

    def backward_gpu(self, inputs: tuple[Any, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(None for _ in inputs)

    def retain_inputs(self, indexes: Sequence[int]) -> None:
        """Keep only these inputs for backward (all are kept by default)."""
        self._input_indexes_to_retain = tuple(indexes)

    def retain_outputs(self, indexes: Sequence[int], retain_after_backward: bool = False) -> None:
        """Keep these outputs for backward, available as :attr:`output_data`."""
        self._output_indexes_to_retain = tuple(indexes)

    def unchain(self) -> None:
        """Detach the latest application from the graph."""
        self.node.unchain()

    def add_hook(self, hook: Any, name: str | None = None) -> None:
        self.node.add_hook(hook, name)

    def delete_hook(self, name: str) -> None:
        self.node.delete_hook(name)
