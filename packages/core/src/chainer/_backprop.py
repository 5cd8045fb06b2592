"""Reverse-mode traversal of the computational graph.

Functions are visited in decreasing rank (a function's rank is the largest rank of its
inputs, and an output's rank is its creator's plus one), so every consumer of a
variable is processed before its creator and the variable's gradient is complete when
its creator needs it. Gradients flowing into the same node are summed.
"""

from __future__ import annotations

import heapq
import traceback
import warnings
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy

from chainer import backend, configuration, function_hook, variable

if TYPE_CHECKING:
    from chainer import function_node


_FIRST_ONLY: tuple[int, ...] = (0,)
# The default of ``owned.get`` in traverse: never a gradient.
_NOT_OWNED: Any = object()


def check_finite(arrays: Iterable[Any], label: str, direction: str) -> None:
    """Debug mode: raise if any floating array holds NaN or infinity, naming the function."""
    for index, array in enumerate(arrays):
        if array is None or array.dtype.kind not in "fc":
            continue
        xp = backend.get_array_module(array)
        if bool(xp.isnan(array).any()):
            raise RuntimeError(
                f"NaN is detected on {direction} computation of {label} (output {index}, shape {tuple(array.shape)})"
            )
        if bool(xp.isinf(array).any()):
            raise RuntimeError(
                f"Inf is detected on {direction} computation of {label} (output {index}, shape {tuple(array.shape)})"
            )


def capture_stack() -> list[traceback.FrameSummary]:
    """The Python stack where a function is applied (recorded in debug mode)."""
    return traceback.extract_stack()[:-2]


def _as_grad_variable(g: Any) -> variable.Variable | None:
    if g is None or isinstance(g, variable.Variable):
        return g
    return variable.Variable(g, requires_grad=False)


def _grad_mismatch(
    func: function_node.FunctionNode, index: int, gx: variable.Variable, node: variable.VariableNode
) -> Exception:
    array = gx._array
    if array.shape != node.shape:
        return ValueError(
            f"{func.label}.backward returned a gradient of shape {array.shape} for input {index}, "
            f"whose shape is {node.shape}"
        )
    return TypeError(
        f"{func.label}.backward returned a gradient of dtype {array.dtype} for input {index}, "
        f"whose dtype is {node.dtype}"
    )


def _select_targets(func: function_node.FunctionNode, target: tuple[int, ...], gxs: tuple[Any, ...]) -> tuple[Any, ...]:
    n_inputs = len(func.inputs or ())
    if len(gxs) == n_inputs:
        return tuple([gxs[i] for i in target])
    raise ValueError(
        f"number of gradients returned from backward is incorrect: {func.label}.backward returned "
        f"{len(gxs)} gradient(s); expected one per target input ({len(target)}) or one per input ({n_inputs})"
    )


def _check_grads_debug(
    func: function_node.FunctionNode,
    target: tuple[int, ...],
    gxs: tuple[Any, ...],
    dtypes: Sequence[Any] | None = None,
) -> None:
    """Debug mode: each gradient is a Variable (or None) shaped and typed like its input
    (or, if ``dtypes`` is given, like the gradient accumulated so far: ``None`` there
    skips the dtype check) and free of NaN; the messages are Chainer's, which code and
    tests match."""
    inputs = func.inputs
    assert inputs is not None
    if len(gxs) != len(target):
        raise ValueError(
            f"number of gradients returned from backward is incorrect: {func.label}.backward returned "
            f"{len(gxs)} for {len(target)} input(s)"
        )
    for k, (i, gx) in enumerate(zip(target, gxs)):
        if gx is None:
            continue
        if not isinstance(gx, variable.Variable):
            raise ValueError(
                f"type of gradients returned from backward is incorrect: {func.label}.backward returned a "
                f"{type(gx).__name__} for input {i}; expected a Variable or None"
            )
        x = inputs[i]
        array = gx._array
        if array.shape != x.shape:
            raise ValueError(
                f"shape of gradients returned from backward is incorrect: {func.label}.backward returned shape "
                f"{array.shape} for input {i} of shape {x.shape}"
            )
        expected_dtype = x.dtype if dtypes is None else dtypes[k]
        if expected_dtype is not None and array.dtype != expected_dtype:
            raise ValueError(
                f"dtype of gradients returned from backward is incorrect: {func.label}.backward returned dtype "
                f"{array.dtype} for input {i}, expected {expected_dtype}"
            )
    check_finite([None if g is None else g._array for g in gxs], func.label, "backward")


def _sum_in_place(previous: variable.Variable, gx: variable.Variable) -> variable.Variable | None:
    """A new gradient buffer holding ``previous + gx``, which the traversal owns and may
    add later gradients into in place; ``None`` where the plain ``+`` must be used (not
    two NumPy arrays of one shape and dtype)."""
    a, b = previous._array, gx._array
    if previous._layout is not None:
        return None  # the plain + keeps the gradient's memory layout
    if type(a) is not numpy.ndarray or type(b) is not numpy.ndarray or a.shape != b.shape or a.dtype != b.dtype:
        return None
    # The same ufunc loop as Add.forward, so the sum is bit for bit the one it gave
    # (asarray: the sum of 0-dimensional arrays is a NumPy scalar).
    return variable.Variable._init_unchecked(
        numpy.asarray(a + b), requires_grad=previous._requires_grad or gx._requires_grad
    )


def _accumulated_backward(
    func: function_node.FunctionNode,
    target: tuple[int, ...],
    gys: tuple[Any, ...],
    grads: dict[variable.VariableNode, Any],
) -> tuple[Any, ...]:
    # The function fuses accumulation into its backward; hand it the sums so far.
    inputs = func.inputs
    assert inputs is not None
    seen: set[int] = set()
    accumulated = []
    for i in target:
        node = inputs[i]
        accumulated.append(None if id(node) in seen else grads.pop(node, None))
        seen.add(id(node))
    return func.backward_accumulate(target, gys, tuple(accumulated))


def traverse(
    root_nodes: Sequence[variable.VariableNode],
    root_grads: Sequence[variable.Variable | None],
    retain_grad: bool,
    enable_double_backprop: bool,
    stop_nodes: set[variable.VariableNode] | None = None,
    seeds: dict[variable.VariableNode, variable.Variable] | None = None,
) -> dict[variable.VariableNode, Any]:
    """Propagate gradients from the roots; return the gradients of the nodes the
    traversal ends at (leaves) and of the ``stop_nodes`` (captured as they complete).

    ``seeds`` are gradients added at nodes inside the graph: they flow on from there
    when the traversal reaches the node, but do not start a traversal by themselves.
    """
    grads: dict[Any, Any] = {} if seeds is None else dict(seeds)
    # A variable used many times (a weight shared by every step of an RNN) receives one
    # gradient per use. Unless the sums must be differentiable (double backprop) or seen
    # by function hooks or debug checks as Add nodes, they go into one buffer per node,
    # made at the second gradient and added into in place afterwards: no Add node and no
    # new array per use. ``owned[node]`` is that buffer while it is ``grads[node]``;
    # nothing else ever holds it before the node's gradient is complete, so the in-place
    # adds are invisible (arrays returned by backward or given by the user are never
    # written to).
    owned: dict[Any, Any] = {}
    finished: dict[Any, Any] = {}
    heap: list[tuple[int, int, Any]] = []
    pushed: set[int] = set()
    order = 0
    debug = configuration.config.debug
    hooks = function_hook._state.function_hooks
    in_place = not enable_double_backprop and not debug and not hooks
    heappush, heappop = heapq.heappush, heapq.heappop
    Variable = variable.Variable

    for node, g in zip(root_nodes, root_grads):
        if g is None:
            continue
        previous = grads.get(node)
        grads[node] = g if previous is None else previous + g
        func = node.creator_node
        if func is not None and id(func) not in pushed:
            pushed.add(id(func))
            order += 1
            heappush(heap, (-func.rank, order, func))

    # The function to visit next while it is the only one queued (a chain of functions,
    # the common case), kept out of the heap; ``following_order`` is its place in the order.
    following: Any = None
    following_order = 0

    with configuration.using_config("enable_backprop", enable_double_backprop):
        while True:
            if following is not None:
                func = following
                following = None
            elif heap:
                func = heappop(heap)[2]
            else:
                break
            inputs = func.inputs
            if inputs is None:  # unchained after it was queued
                continue
            outputs = func.outputs
            if len(outputs) == 1:
                # The common single-output case, without the bookkeeping loop below.
                y = outputs[0]()
                # An output unchained since (or re-created by another function) is no
                # longer this function's: its gradient stays where it is.
                gy = None if y is None or y.creator_node is not func else grads.pop(y, None)
                if stop_nodes is not None and y in stop_nodes:
                    finished[y] = gy
                if gy is None:
                    continue
                if retain_grad:
                    y_var = y._variable()
                    if y_var is not None:
                        y_var._grad_var = gy
                gys_t: tuple[Any, ...] = (gy,)
            else:
                gys: list[Any] = []
                any_grad = False
                for ref in outputs:
                    y = ref()
                    if y is None or y.creator_node is not func:
                        gys.append(None)
                        continue
                    gy = grads.pop(y, None)
                    gys.append(gy)
                    if gy is not None:
                        any_grad = True
                        if retain_grad:
                            y_var = y._variable()
                            if y_var is not None:
                                y_var._grad_var = gy
                    if stop_nodes is not None and y in stop_nodes:
                        finished[y] = gy
                if not any_grad:
                    continue
                gys_t = tuple(gys)
            if len(inputs) == 1:
                if not inputs[0]._requires_grad:
                    continue
                target = _FIRST_ONLY
            else:
                target = tuple([i for i, x in enumerate(inputs) if x._requires_grad])
                if not target:
                    continue

            if hooks or func._local_function_hooks:
                all_hooks = func._active_hooks()
                in_data = tuple(x.data for x in inputs)
                out_grad = tuple(None if g is None else g._array for g in gys_t)
                for hook in all_hooks:
                    hook.backward_preprocess(func, in_data, out_grad)
            else:
                all_hooks = None
            leaf_grads: list[tuple[int, Any]] | None = None
            try:
                if in_place and func._leaf_gradient_inputs and not func._has_custom_accumulate:
                    # Gradients of parameters as arrays (no gradient node, no variable per
                    # use), added into the buffer of the sum so far where the function can.
                    kept = []
                    for i in target:
                        x = inputs[i]
                        if (
                            i not in func._leaf_gradient_inputs
                            or x.creator_node is not None
                            or inputs.count(x) != 1
                            or (job := func._leaf_gradient_job(i, gys_t)) is None
                        ):
                            kept.append(i)
                            continue
                        compute, requires_grad, accumulate = job
                        previous = grads.get(x)
                        if (
                            accumulate is not None
                            and previous is not None
                            and previous is owned.get(x, _NOT_OWNED)
                            and accumulate(previous._array)
                        ):
                            if requires_grad:
                                previous._requires_grad = True
                            continue
                        grad = Variable._init_unchecked(compute(), requires_grad=requires_grad)
                        if previous is None and grad._array.shape == x.shape and grad._array.dtype == x.dtype:
                            # A new array nothing else holds: the buffer of the sum from the start.
                            grads[x] = owned[x] = grad
                            continue
                        if leaf_grads is None:
                            leaf_grads = []
                        leaf_grads.append((i, grad))
                    if len(kept) != len(target):
                        target = tuple(kept)
                if not target:
                    gxs: tuple[Any, ...] = ()
                elif func._has_custom_accumulate:
                    gxs = _accumulated_backward(func, target, gys_t, grads)
                else:
                    gxs = func.backward(target, gys_t)
                    if len(gxs) != len(target):
                        gxs = _select_targets(func, target, gxs)
                if debug:
                    _check_grads_debug(func, target, gxs)
            except Exception as exc:
                exc.add_note(f"(raised in the backward of {func.label})")
                if func.stack is not None:
                    _add_stack_to_message(exc, func.stack)
                raise
            if all_hooks:
                for hook in all_hooks:
                    hook.backward_postprocess(func, in_data, out_grad)
            pairs: Iterable[tuple[int, Any]] = zip(target, gxs)
            if leaf_grads is not None:
                pairs = [*pairs, *leaf_grads]
            for i, gx in pairs:
                if gx is None:
                    continue
                if type(gx) is not Variable:
                    gx = _as_grad_variable(gx)
                x = inputs[i]
                array = gx._array
                dtype = array.dtype
                if array.shape != x.shape or (dtype is not x.dtype and dtype != x.dtype):
                    mismatch = _grad_mismatch(func, i, gx, x)
                    if func.stack is not None:
                        _add_stack_to_message(mismatch, func.stack)
                    raise mismatch
                previous = grads.get(x)
                if previous is None:
                    grads[x] = gx
                elif not in_place:
                    grads[x] = previous + gx
                elif previous is owned.get(x, _NOT_OWNED):
                    numpy.add(previous._array, array, out=previous._array)
                else:
                    summed = _sum_in_place(previous, gx)
                    if summed is None:
                        grads[x] = previous + gx
                    else:
                        grads[x] = owned[x] = summed
                creator = x.creator_node
                if creator is not None and id(creator) not in pushed:
                    pushed.add(id(creator))
                    order += 1
                    if not heap and following is None:
                        following, following_order = creator, order
                    else:
                        if following is not None:
                            heappush(heap, (-following.rank, following_order, following))
                            following = None
                        heappush(heap, (-creator.rank, order, creator))

    finished.update(grads)
    return finished


def _add_stack_to_message(exc: Exception, stack: list[traceback.FrameSummary]) -> None:
    # Debug mode: the message itself names where the function was applied (notes are
    # not part of str(exc), which is what logs and assertRaisesRegex see).
    text = "\nStacktrace of the function (where it was applied):\n" + "".join(traceback.format_list(stack))
    if exc.args and isinstance(exc.args[0], str):
        exc.args = (exc.args[0] + text, *exc.args[1:])
    elif not exc.args:
        exc.args = (text,)
    else:
        exc.add_note(text)


def _initial_grad(var: variable.Variable, where: str) -> variable.Variable:
    """The gradient backprop starts from: ``var.grad_var``, or ones for a one-element
    variable without one."""
    gv = var._grad_var
    if gv is not None:
        return gv
    array = var._array
    if array is None:
        raise ValueError(f"{where}: the variable holds no array")
    if array.size != 1:
        raise ValueError(
            f"{where}: the variable has {array.size} elements and no gradient; set its .grad to an "
            f"array of shape {array.shape} first, or reduce it to one element (e.g. F.sum)"
        )
    if array.ndim != 0:
        # No stacklevel: attributed to Chainer as in Chainer 7 (Python's default filters hide it).
        warnings.warn(
            f"{where}: treating a variable of shape {array.shape} as a scalar is deprecated (as in "
            "Chainer 7); reduce it to a 0-dimensional variable (e.g. F.squeeze or F.sum), or set its grad",
            DeprecationWarning,
        )
    xp = backend.get_array_module(array)
    return variable.Variable(xp.ones_like(array), requires_grad=False)


def _store_leaf_grads(grads: dict[Any, Any], loss_scale: float | None) -> None:
    for node, g in grads.items():
        if g is None or not node._requires_grad or node.creator_node is not None:
            continue
        var = node._variable()
        if var is None:
            continue
        previous = var._grad_var
        var._grad_var = g if previous is None else previous + g
        var._loss_scale = loss_scale


def _needs_no_grad(var: variable.Variable) -> bool:
    # Whether backprop from var would call no backward at all: its creator has no input
    # that requires a gradient, or it has no creator because none of the inputs of the
    # function that made it required one (no graph was recorded; 7.8.1 recorded it and
    # found nothing to do either).
    node = var._node_if_any()
    creator = None if node is None else node.creator_node
    if creator is None:
        return not var.requires_grad
    return not any(x._requires_grad for x in creator.inputs or ())


def backward_from_variable(
    var: variable.Variable, retain_grad: bool, enable_double_backprop: bool, loss_scale: float | None
) -> None:
    if var._grad_var is None and var._array is not None and var._array.size != 1 and _needs_no_grad(var):
        return
    gv = _initial_grad(var, "Variable.backward")
    # The output's gradient is consumed by backprop (as in Chainer 6 and later) unless
    # retain_grad keeps every gradient of the graph.
    var._grad_var = gv if retain_grad else None
    if loss_scale is not None:
        gv = gv * loss_scale
    node = var._node_if_any()
    if node is None or node.creator_node is None:
        # A leaf: its gradient is the one backprop starts from.
        var._grad_var = gv
        return
    grads = traverse([node], [gv], retain_grad, enable_double_backprop)
    _store_leaf_grads(grads, loss_scale)


def _backward_summing(outputs: Sequence[variable.Variable], grad_outputs: Sequence[Any]) -> None:
    """Backprop from ``outputs`` with ``grad_outputs`` into the leaves' gradients; an
    output given twice receives the sum of its gradients (gradient_check needs that: a
    function may return one variable as two outputs)."""
    nodes = [y.node for y in outputs]
    grads = [_as_grad_variable(g) for g in grad_outputs]
    _store_leaf_grads(traverse(nodes, grads, False, False), None)


def backward(outputs: Sequence[variable.Variable], grad_outputs: Sequence[Any] | None = None, **kwargs: Any) -> None:
    """Run backprop from several outputs at once.

    ``backward(outputs, grad_outputs=None, *, enable_double_backprop=False)``

    Args:
        outputs: Output variables.
        grad_outputs: Their gradients (arrays or Variables); ``None`` uses each output's
            :attr:`~chainer.Variable.grad`, or ``1`` for a one-element output.
        enable_double_backprop: Record the backward computation as a graph.
    """
    enable_double_backprop = kwargs.pop("enable_double_backprop", False)
    if kwargs:
        raise TypeError(f"chainer.backward() got unexpected keyword arguments: {', '.join(kwargs)}")
    if not isinstance(outputs, (tuple, list)):
        raise TypeError(f"chainer.backward: outputs must be a tuple or list of Variables, got {type(outputs).__name__}")
    if grad_outputs is not None:
        if not isinstance(grad_outputs, (tuple, list)):
            raise TypeError(
                f"chainer.backward: grad_outputs must be a tuple or list, got {type(grad_outputs).__name__}"
            )
        if len(grad_outputs) != len(outputs):
            raise ValueError(f"chainer.backward: {len(outputs)} outputs but {len(grad_outputs)} grad_outputs")
    nodes, grads = [], []
    seen: set[int] = set()
    skipped = False
    for i, y in enumerate(outputs):
        if not isinstance(y, variable.Variable):
            raise TypeError(f"chainer.backward: outputs[{i}] must be a Variable, got {type(y).__name__}")
        if id(y) in seen:
            skipped = True
            continue
        seen.add(id(y))
        if grad_outputs is None:
            # The outputs' own gradients are used, and consumed as by Variable.backward.
            g = y._grad_var
            y._grad_var = None
        else:
            g = _as_grad_variable(grad_outputs[i])
        if g is None:
            skipped = True
            continue
        node = y._node_if_any()
        if node is None or node.creator_node is None:
            y._grad_var = g if y._grad_var is None else y._grad_var + g
            continue
        nodes.append(node)
        grads.append(g)
    if skipped:
        # Unlike Variable.backward, chainer.backward starts from no default gradient.
        warnings.warn(
            "chainer.backward: outputs include a variable without a gradient (skipped; no default gradient "
            "is assumed) or the same variable twice (its gradient is used once)",
            RuntimeWarning,
            stacklevel=2,
        )
    if nodes:
        _store_leaf_grads(traverse(nodes, grads, False, enable_double_backprop), None)


def grad(
    outputs: Sequence[variable.Variable],
    inputs: Sequence[variable.Variable],
    grad_outputs: Sequence[Any] | None = None,
    grad_inputs: Sequence[Any] | None = None,
    set_grad: bool = False,
    retain_grad: bool = False,
    enable_double_backprop: bool = False,
    loss_scale: float | None = None,
) -> list[variable.Variable | None]:
    """Gradients of ``outputs`` with respect to ``inputs``, returned rather than stored.

    Args:
        outputs: Output variables.
        inputs: Variables to differentiate with respect to (leaves or intermediates).
        grad_outputs: Initial gradients of the outputs; ``None`` (or a ``None``
            element) starts from an array of ones shaped like the output, whatever its
            size. The outputs' ``grad`` is not used.
        grad_inputs: Gradients to add to the result for each input.
        set_grad: Also store the results in the inputs' ``grad_var``.
        retain_grad: Keep the gradients of intermediate variables.
        enable_double_backprop: Record the computation so the results can be differentiated.
        loss_scale: Multiply the initial gradients by this factor.

    Returns:
        A list with one gradient Variable (or ``None``) per input. Other variables'
        gradients are left untouched.
    """
    for name, seq in (("outputs", outputs), ("inputs", inputs)):
        if not isinstance(seq, (tuple, list)):
            raise TypeError(f"chainer.grad: {name} must be a tuple or list of Variables, got {type(seq).__name__}")
    for i, v in enumerate(outputs):
        if not isinstance(v, variable.Variable):
            raise TypeError(f"chainer.grad: outputs[{i}] must be a Variable, got {type(v).__name__}")
    # A bad input is reported after the traversal, so that an error of the graph itself
    # (e.g. an old-style function asked for a second order) surfaces first, as in Chainer.
    bad_inputs = [(i, v) for i, v in enumerate(inputs) if not isinstance(v, variable.Variable)]
    for name, optional in (("grad_outputs", grad_outputs), ("grad_inputs", grad_inputs)):
        if optional is not None and not isinstance(optional, (tuple, list)):
            raise TypeError(f"chainer.grad: {name} must be a tuple or list, got {type(optional).__name__}")
    if grad_outputs is not None and len(grad_outputs) != len(outputs):
        raise ValueError(f"chainer.grad: {len(outputs)} outputs but {len(grad_outputs)} grad_outputs")
    if grad_inputs is not None and len(grad_inputs) != len(inputs):
        raise ValueError(f"chainer.grad: {len(inputs)} inputs but {len(grad_inputs)} grad_inputs")

    nodes, root_grads = [], []
    for i, y in enumerate(outputs):
        g = None if grad_outputs is None else _as_grad_variable(grad_outputs[i])
        if g is None:
            # As documented for 7.8.1: a missing initial gradient is an array of ones,
            # whatever the output's size (unlike Variable.backward, which needs a scalar
            # or a grad set by the user).
            array = y._array
            g = variable.Variable(backend.get_array_module(array).ones_like(array), requires_grad=False)
        if loss_scale is not None:
            g = g * loss_scale
        nodes.append(y.node)
        root_grads.append(g)

    input_nodes = [x.node for x in inputs if isinstance(x, variable.Variable)]
    input_node_set = set(input_nodes)
    # grad_inputs join the gradient at their input, so an intermediate input passes
    # them on to what it was computed from.
    seeds: dict[Any, Any] = {}
    if grad_inputs is not None:
        for node, g in zip(input_nodes, grad_inputs):
            if g is not None:
                g = _as_grad_variable(g)
                previous = seeds.get(node)
                seeds[node] = g if previous is None else previous + g
    found = traverse(
        nodes, root_grads, retain_grad, enable_double_backprop, stop_nodes=input_node_set, seeds=seeds or None
    )
    if bad_inputs:
        i, v = bad_inputs[0]
        raise TypeError(f"chainer.grad: inputs[{i}] must be a Variable, got {type(v).__name__}")
    # An input that is also an output receives the output's initial gradient directly.
    for node, g in zip(nodes, root_grads):
        if node in input_node_set and node not in found:
            found[node] = g
    results: list[variable.Variable | None] = []
    for i, node in enumerate(input_nodes):
        g = found.get(node)
        results.append(g)
        if set_grad:
            inputs[i]._grad_var = g
    return results
