"""Make a Python function built of Chainer functions appear as one function node.

The exporter converts function nodes one by one. A model that computes something with
several Chainer functions (or with NumPy on the arrays) for which one ONNX operator, or
a custom one, exists can wrap that computation so the graph holds a single node named
``name``; a converter registered under ``name`` (``external_converters={name:
converter}``) then exports it.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import chainer
from onnx_chainer import _arrays

__all__ = ["WrappedFunctionNode", "as_funcnode", "fake_as_funcnode"]


def _is_var(array: Any) -> bool:
    return isinstance(array, chainer.Variable)


def _is_array(v: Any) -> bool:
    return _arrays.is_array(v)


def _unwrap_var(var: Any) -> Any:
    return var.array if _is_var(var) else var


def _flatten(xs: Any) -> list[Any]:
    """The variables and arrays in ``xs`` (nested lists, tuples and dicts), in order."""
    return _arrays.flatten(xs)


# Stands for an output in the structure a wrapped function returned.
_LEAF = object()


def _skeleton(structure: Any) -> Any:
    """``structure`` with its variables and arrays replaced by ``_LEAF``."""
    return _rebuild(structure, iter(lambda: _LEAF, None))


def _rebuild(structure: Any, values: Any) -> Any:
    """``structure`` with its variables and arrays replaced by the next of ``values``."""
    if structure is _LEAF or _is_var(structure) or _is_array(structure):
        return next(values)
    if isinstance(structure, (list, tuple)):
        items = [_rebuild(item, values) for item in structure]
        return type(structure)(items) if isinstance(structure, list) else tuple(items)
    if isinstance(structure, dict):
        return {key: _rebuild(item, values) for key, item in structure.items()}
    return structure


class WrappedFunctionNode(chainer.FunctionNode):
    """A function node running ``func`` as one step of the graph.

    Every variable or array among the arguments of ``func`` (also inside lists, tuples
    and dicts) is an input of the node; the other arguments are kept as attributes for
    converters: a positional one as ``arg<i>``, a keyword or default one under its
    name, unless ``rename_attributes`` names it otherwise. The outputs are the variables
    and arrays ``func`` returns, in the structure it returns them.

    Backward runs ``func`` again on the inputs with backprop enabled and differentiates
    that graph, so gradients (also of higher order) are those of ``func`` itself.

    Args:
        name: The node name converters are registered under.
        func: The wrapped function.
        args: Its positional arguments.
        kwargs: Its keyword arguments.
        attributes: The attributes to set on the node.
    """

    def __init__(
        self,
        name: str,
        func: Callable[..., Any],
        args: Sequence[Any],
        kwargs: dict[str, Any],
        attributes: dict[str, Any] | None = None,
    ) -> None:
        self.custom_function_node_name = name
        self.func = func
        self.args = tuple(args)
        self.kwargs = dict(kwargs)
        self._output_structure: Any = None
        for key, value in (attributes or {}).items():
            setattr(self, key, value)

    @property
    def label(self) -> str:
        return self.custom_function_node_name

    def _call(self, inputs: Sequence[Any]) -> Any:
        values = iter(inputs)
        args = _rebuild(self.args, values)
        kwargs = _rebuild(self.kwargs, values)
        return self.func(*args, **kwargs)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs(tuple(range(len(inputs))))
        with chainer.no_backprop_mode():
            outputs = self._call([chainer.Variable(x) for x in inputs])
        self._output_structure = _skeleton(outputs)
        flat = _flatten(outputs)
        if not flat:
            raise ValueError(f"{self.label}: the wrapped function returned no variable or array")
        xp = chainer.backend.get_array_module(inputs[0])
        return tuple(xp.asarray(_unwrap_var(y)) for y in flat)

    def backward(self, target_input_indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        inputs = self.get_retained_inputs()
        with chainer.using_config("enable_backprop", True):
            outputs = _flatten(self._call(inputs))
        if not all(_is_var(y) for y in outputs):
            raise ValueError(
                f"{self.label}: the function wrapped by fake_as_funcnode returned arrays, not variables, so "
                "gradients cannot flow through it; return chainer.Variable outputs to backpropagate"
            )
        pairs = [(y, gy) for y, gy in zip(outputs, grad_outputs) if gy is not None]
        targets = [inputs[i] for i in target_input_indexes]
        if not pairs:
            return (None,) * len(targets)
        grads = chainer.grad(
            [y for y, _ in pairs], targets, grad_outputs=[gy for _, gy in pairs], enable_double_backprop=True
        )
        return tuple(grads)


def _attributes(
    alt_func: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], renames: dict[int | str, str]
) -> dict[str, Any]:
    """The non-input arguments of a call, by attribute name (defaults included)."""
    attributes = {}
    for i, value in enumerate(args):
        if not _flatten(value):
            attributes[renames.get(i, f"arg{i}")] = value
    for key, value in kwargs.items():
        if not _flatten(value):
            attributes[renames.get(key, key)] = value
    try:
        bound = inspect.signature(alt_func).bind(*args, **kwargs)
    except (TypeError, ValueError):
        return attributes
    for key, param in inspect.signature(alt_func).parameters.items():
        if key not in bound.arguments and param.default is not inspect.Parameter.empty:
            attributes[renames.get(key, key)] = param.default
    return attributes


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
        alt_func: The function to wrap. It takes variables (or arrays, possibly in
            lists, tuples and dicts) and returns variables or arrays, alone or in a
            list, tuple or dict; the wrapped function returns the same structure.
        name: The function node name converters are registered under.
        rename_attributes: Pairs ``(argument, attribute name)``: the non-input
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
        inputs = _flatten(list(args)) + _flatten(dict(kwargs))
        if not inputs:
            raise ValueError(f"{name}: the wrapped function got no variable or array argument")
        node = WrappedFunctionNode(name, alt_func, args, kwargs, _attributes(alt_func, args, kwargs, renames))
        outputs = node.apply(inputs)
        return _rebuild(node._output_structure, iter(outputs))

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
