"""Make a Python function built of Chainer functions appear as one function node.

The exporter converts function nodes one by one. A model that computes something with
several Chainer functions for which one ONNX operator (or a custom one) exists can wrap
that computation so the graph holds a single node named ``name``; a converter
registered under ``name`` (``external_converters={name: converter}``) then exports it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import chainer
from onnx_chainer import _arrays

__all__ = ["WrappedFunctionNode", "as_funcnode", "fake_as_funcnode"]


def _is_input(value: Any) -> bool:
    return isinstance(value, chainer.Variable) or _arrays.is_array(value)


class WrappedFunctionNode(chainer.FunctionNode):
    """A function node running ``func`` as one step of the graph.

    The arguments of ``func`` that are variables or arrays are the node's inputs; the
    others are kept as attributes named after the keyword (``kwargs``) or ``arg<i>``
    (positional), possibly renamed, so a converter can read them.

    Backward runs ``func`` again on the inputs with backprop enabled and differentiates
    that graph, so gradients (also of higher order) are those of ``func`` itself.
    """

    def __init__(
        self,
        name: str,
        func: Callable[..., Any],
        args: Sequence[Any],
        kwargs: dict[str, Any],
        input_positions: list[int | str],
        attributes: dict[str, Any],
    ) -> None:
        self.custom_function_node_name = name
        self.func = func
        self.args = list(args)
        self.kwargs = dict(kwargs)
        self.input_positions = input_positions
        self._single_output = True
        for key, value in attributes.items():
            setattr(self, key, value)

    @property
    def label(self) -> str:
        return self.custom_function_node_name

    def _call(self, inputs: Sequence[Any]) -> Any:
        args, kwargs = list(self.args), dict(self.kwargs)
        for position, value in zip(self.input_positions, inputs):
            if isinstance(position, int):
                args[position] = value
            else:
                kwargs[position] = value
        return self.func(*args, **kwargs)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs(tuple(range(len(inputs))))
        with chainer.no_backprop_mode():
            outputs = self._call([chainer.Variable(x) for x in inputs])
        self._single_output = not isinstance(outputs, (list, tuple))
        outputs = (outputs,) if self._single_output else tuple(outputs)
        return tuple(chainer.as_array(y) for y in outputs)

    def backward(self, target_input_indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        inputs = self.get_retained_inputs()
        with chainer.using_config("enable_backprop", True):
            outputs = self._call(inputs)
        outputs = (outputs,) if not isinstance(outputs, (list, tuple)) else tuple(outputs)
        pairs = [(y, gy) for y, gy in zip(outputs, grad_outputs) if gy is not None]
        targets = [inputs[i] for i in target_input_indexes]
        grads = chainer.grad(
            [y for y, _ in pairs], targets, grad_outputs=[gy for _, gy in pairs], enable_double_backprop=True
        )
        return tuple(grads)


def fake_as_funcnode(
    alt_func: Callable[..., Any],
    name: str,
    rename_attributes: Sequence[tuple[int | str, str]] | None = None,
    experimental_warning: bool = True,
) -> Callable[..., Any]:
    """The target function fakes FunctionNode.

    Returns a function that calls ``alt_func`` as a single
    :class:`WrappedFunctionNode` named ``name`` in the computational graph.

    Args:
        alt_func: The function to wrap (it takes and returns variables).
        name: The function node name converters are registered under.
        rename_attributes: Pairs ``(argument, attribute name)``: the non-variable
            argument at this position (int) or keyword (str) is stored under the new
            name instead of ``arg<i>`` / its keyword.
        experimental_warning: Emit the experimental-API ``FutureWarning`` (once).

    Returns:
        The wrapped function.

    Example:
        >>> from onnx_chainer.replace_func import fake_as_funcnode
        >>> def scaled_add(x, y, alpha=1.0):
        ...     return x + alpha * y
        >>> f = fake_as_funcnode(scaled_add, 'ScaledAdd', experimental_warning=False)
        >>> y = f(chainer.Variable(np.ones(2, 'f')), np.ones(2, 'f'), alpha=2.0)
        >>> y.creator.label, y.creator.alpha
        ('ScaledAdd', 2.0)
    """
    if not isinstance(name, str) or not name:
        raise TypeError(f"onnx_chainer.replace_func.fake_as_funcnode: name must be a non-empty str, got {name!r}")
    if not callable(alt_func):
        raise TypeError("onnx_chainer.replace_func.fake_as_funcnode: alt_func must be callable")
    renames: dict[int | str, str] = {}
    for pair in rename_attributes or ():
        if len(pair) != 2 or not isinstance(pair[1], str):
            raise ValueError(
                "onnx_chainer.replace_func.fake_as_funcnode: rename_attributes holds (position or keyword, "
                f"new name) pairs, got {pair!r}"
            )
        renames[pair[0]] = pair[1]
    if experimental_warning:
        chainer.utils.experimental("onnx_chainer.replace_func.fake_as_funcnode")

    @functools.wraps(alt_func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        positions: list[int | str] = []
        inputs = []
        attributes = {}
        for i, value in enumerate(args):
            if _is_input(value):
                positions.append(i)
                inputs.append(value)
            else:
                attributes[renames.get(i, f"arg{i}")] = value
        for key, value in kwargs.items():
            if _is_input(value):
                positions.append(key)
                inputs.append(value)
            else:
                attributes[renames.get(key, key)] = value
        if not inputs:
            raise ValueError(f"{name}: the wrapped function got no variable or array argument")
        node = WrappedFunctionNode(name, alt_func, args, kwargs, positions, attributes)
        outputs = node.apply(inputs)
        return outputs[0] if node._single_output else outputs

    return wrapped


def as_funcnode(name: str, rename_attributes: Sequence[tuple[int | str, str]] | None = None) -> Callable[..., Any]:
    """The target function fakes FunctionNode (decorator form of :func:`fake_as_funcnode`).

    Example:
        >>> from onnx_chainer.replace_func import as_funcnode
        >>> @as_funcnode('ScaledAdd')
        ... def scaled_add(x, y, alpha=1.0):
        ...     return x + alpha * y
        >>> scaled_add(chainer.Variable(np.ones(2, 'f')), np.ones(2, 'f'), alpha=3.0).creator.label
        'ScaledAdd'
    """

    def decorator(alt_func: Callable[..., Any]) -> Callable[..., Any]:
        return fake_as_funcnode(alt_func, name, rename_attributes=rename_attributes, experimental_warning=False)

    return decorator
