"""Recomputation instead of storage: trade compute for memory."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chainer import _backprop, configuration, function, function_node, variable


def _ordinal(n: int) -> str:
    # 1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, ..., 21st: the teens always take "th".
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _call_func(func: Callable[..., Any], xs: tuple[variable.Variable, ...]) -> tuple[variable.Variable, ...]:
    outs = func(*xs)
    if isinstance(outs, variable.Variable):
        return (outs,)
    if isinstance(outs, tuple):
        for i, out in enumerate(outs):
            if not isinstance(out, variable.Variable):
                raise RuntimeError(
                    f"chainer.functions.forget: func must return a Variable or a tuple of Variables; "
                    f"the {_ordinal(i + 1)} element of the returned tuple is a {type(out).__name__}"
                )
        return outs
    raise RuntimeError(
        f"chainer.functions.forget: func must return a Variable or a tuple of Variables, got {type(outs).__name__}"
    )


class Forget(function_node.FunctionNode):
    """Runs ``func`` without recording its graph, and again (recording it) in backward."""

    def __init__(self, func: Callable[..., Any]) -> None:
        if not callable(func):
            raise TypeError(f"chainer.functions.forget: func must be callable, got {type(func).__name__}")
        self.func = func

    @property
    def label(self) -> str:
        return f"Forget({getattr(self.func, '__name__', type(self.func).__name__)})"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs(tuple(range(len(inputs))))
        with function.no_backprop_mode():
            xs = tuple(variable.Variable(x, requires_grad=False) for x in inputs)
            outs = _call_func(self.func, xs)
        return tuple(out.array for out in outs)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        inputs = self.get_retained_inputs()
        double_backprop = bool(configuration.config.enable_backprop)
        if double_backprop:
            # Recompute on the graph-connected inputs so that the gradients returned here
            # depend on them and can be differentiated again.
            xs = inputs
        else:
            xs = tuple(variable.Variable(x.array, requires_grad=x.dtype.kind == "f") for x in inputs)
        with function.force_backprop_mode(), configuration.using_config("in_recomputing", True):
            outs = _call_func(self.func, xs)
        if len(outs) != len(grad_outputs):
            raise RuntimeError(
                f"chainer.functions.forget: func returned {len(grad_outputs)} outputs in forward but "
                f"{len(outs)} when recomputed in backward; it must be deterministic"
            )
        pairs = [(y, gy) for y, gy in zip(outs, grad_outputs) if gy is not None]
        x_nodes = {x.node for x in xs}
        # An input that func returns as it is receives that output's gradient directly.
        direct: dict[Any, Any] = {}
        for y, gy in pairs:
            if y.node in x_nodes:
                direct[y.node] = gy if y.node not in direct else direct[y.node] + gy
        pairs = [(y, gy) for y, gy in pairs if y.creator_node is not None and y.node not in x_nodes]
        # Backpropagate through the recomputed graph down to the inputs (whose gradients
        # are returned to the outer traversal) and to the other variables it reaches, such
        # as the parameters of links that func calls: those accumulate their gradients
        # here, as in a backward of the whole graph.
        found = _backprop.traverse(
            [y.node for y, _ in pairs],
            [gy if isinstance(gy, variable.Variable) else variable.Variable(gy) for _, gy in pairs],
            False,
            double_backprop,
            stop_nodes=x_nodes,
        )
        _backprop._store_leaf_grads({node: g for node, g in found.items() if node not in x_nodes}, None)
        result = []
        for i in indexes:
            g, g_direct = found.get(xs[i].node), direct.get(xs[i].node)
            result.append(g_direct if g is None else g if g_direct is None else g + g_direct)
        return tuple(result)


def forget(func: Callable[..., Any], *xs: Any) -> Any:
    """Calls ``func(*xs)`` without keeping its intermediate results, recomputing them in backward.

    Normally every intermediate array of a computation is kept until backward. Wrapped
    in ``forget``, ``func`` runs without recording a graph, so only its inputs and
    outputs are kept; backward calls ``func`` again, this time recording the graph, and
    backpropagates through it. Memory is traded for a second forward computation.

    During the recomputation ``chainer.config.in_recomputing`` is ``True``; links that
    update state in their forward (e.g. the running statistics of batch normalization)
    should check it to avoid updating twice.

    ``func`` must compute the same thing both times: functions with randomness (such as
    :func:`~chainer.functions.dropout`) give gradients of a different sample. Double
    backprop through ``forget`` is supported.

    Args:
        func: A callable taking variables and returning a variable or a tuple of variables.
        xs: Its arguments (variables or arrays).

    Returns:
        A variable if ``func`` returns one output, else a tuple of variables.

    Example:
        >>> x = chainer.Variable(np.array([1., 2.], 'f'))
        >>> y = F.forget(lambda v: F.sum(F.relu(v) * 3), x)
        >>> y.backward()
        >>> x.grad
        array([3., 3.], dtype=float32)
    """
    ys = Forget(func).apply(xs)
    if len(ys) == 1:
        return ys[0]
    return ys


__all__ = ["forget"]
