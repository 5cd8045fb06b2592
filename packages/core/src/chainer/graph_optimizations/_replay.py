"""The fast replay of a static schedule: forward on arrays, one node, a recorded backward.

A replay through :meth:`FunctionNode.apply` (``StaticScheduleFunction._replay_graph``)
builds the graph define-by-run builds, and backprop then walks it with the generic
traversal. The fast replay here builds none of it:

* forward: each recorded step's fresh node runs its ``forward`` on the arrays of the
  value table; no variable, no variable node, no weak reference per step;
* graph: the chain's outputs get one creator, a :class:`ScheduleNode` whose inputs are
  the chain's variable arguments and the outside variables it binds (its parameters);
* backward: ``ScheduleNode.backward`` calls the ``backward`` of the recorded nodes in the
  order the generic traversal would call them (:func:`_backward_order` simulates it
  once per plan), routes and sums the gradients by table index as it would sum them,
  and returns the gradients of its inputs, which the outside traversal stores.

The values are bit for bit those of define-by-run: the same nodes compute the same
arrays, and every gradient is summed in the order define-by-run sums it (within the
chain; a variable that also receives gradients from outside the chain gets the chain's
share as one term, see ``static_graph``'s docstring). The backward functions need
their nodes linked (retained inputs are read through ``node.inputs``), so the backward
links the recorded nodes to variable nodes first (:meth:`ScheduleNode._link`), with
the ranks define-by-run would give; the same graph serves the generic mode of the
backward, which function hooks, debug mode and double backprop use (see
:meth:`ScheduleNode.backward`).

CUDA Graphs. On CuPy a fast replay is a fixed sequence of kernel launches: the same
nodes' ``forward`` on arrays of the same shapes in :func:`run_steps`, then the same
``backward`` calls in ``ScheduleNode.backward``, with no data-dependent branch of this
module in between (the plan and the order are cached per signature).
:mod:`chainer.graph_optimizations._cuda_graph` captures both into CUDA Graphs and
replays them (see its docstring for the buffers, the instances and what cannot be
captured).
"""

from __future__ import annotations

import heapq
import weakref
from typing import TYPE_CHECKING, Any

import numpy

from chainer import _backprop, configuration, function_hook, function_node, variable
from chainer.graph_optimizations import _schedule

if TYPE_CHECKING:
    from chainer.graph_optimizations._schedule import StaticScheduleFunction

_new = object.__new__
_ndarray = numpy.ndarray
_Variable = variable.Variable
_VariableNode = variable.VariableNode
_output_variable = function_node._output_variable
_weakref = weakref.ref


class _Gone:
    pass


# The weak reference of a variable node no variable holds (what a node of a dropped
# intermediate variable has in define-by-run).
_NO_VARIABLE = weakref.ref(_Gone())


def _constant(info: tuple[Any, Any]) -> variable.VariableNode:
    # The node of an array passed as is to a function: a fresh variable in define-by-run.
    x = _new(_VariableNode)
    x._variable = _NO_VARIABLE
    x.creator_node = x.data = x.name = None
    x._requires_grad = False
    x._rank = 0
    x.shape, x.dtype = info
    return x


class Plan:
    """What a fast replay needs for one pattern of input ranks and ``requires_grad``
    flags: each value's rank and whether it requires a gradient, each step's rank, the
    rank of the :class:`ScheduleNode` and of its outputs; and the backward orders, by
    which outputs receive a gradient."""

    __slots__ = ("_links", "node_grad", "node_rank", "orders", "output_rank", "rank", "requires_grad", "value_rank")

    def __init__(self, schedule: StaticScheduleFunction, ranks: tuple[int, ...], flags: tuple[bool, ...]) -> None:
        n_values = schedule._n_values
        value_rank = [0] * n_values
        requires_grad = [False] * n_values
        for pos, index in enumerate(schedule._grad_inputs):
            value_rank[index] = ranks[pos]
            requires_grad[index] = flags[pos]
        node_rank = [0] * len(schedule.steps)
        node_grad = [False] * len(schedule.steps)
        for k, step in enumerate(schedule.steps):
            first = schedule._first[k]
            if step.code is not None:
                continue  # static_code outputs are constants (arrays) for later steps
            rank = 0
            grad = False
            raw = step.raw_inputs
            for j, index in enumerate(step.inputs):
                if j in raw:
                    continue  # a constant: a fresh variable of rank 0
                if value_rank[index] > rank:
                    rank = value_rank[index]
                if requires_grad[index]:
                    grad = True
            node_rank[k] = rank
            node_grad[k] = grad
            for index in range(first, first + step.n_outputs):
                value_rank[index] = rank + 1
                requires_grad[index] = grad
        self.value_rank = value_rank
        self.requires_grad = requires_grad
        self.node_rank = node_rank
        self.node_grad = node_grad
        # The outputs keep define-by-run's ranks, so that the functions applied to them
        # get define-by-run's ranks too. The node must be visited after every consumer
        # of its outputs and before the creators of its inputs; within those bounds it
        # takes the rank of the function that made its (first) output in define-by-run,
        # whose place in the traversal it takes.
        lowest = min([value_rank[i] for i in schedule._output_values if requires_grad[i]], default=1) - 1
        self.rank = max(lowest, *ranks) if ranks else max(lowest, 0)
        self.output_rank = {index: max(value_rank[index], self.rank + 1) for index in schedule._output_values}
        self.orders: dict[tuple[bool, ...], list[Any]] = {}
        self._links: list[Any] | None = None

    def links(self, schedule: StaticScheduleFunction) -> list[Any]:
        """Per function step, what :meth:`ScheduleNode._link` makes of it: the step, its
        rank, its outputs (table index, shape, dtype, rank, requires_grad), its inputs
        (a table index, or the shape and dtype of a constant) and whether it is linked."""
        links = self._links
        if links is None:
            links = self._links = []
            infos = schedule._value_infos
            for k, step in enumerate(schedule.steps):
                if step.code is not None:
                    continue
                first = schedule._first[k]
                outs = tuple(
                    (index, *infos[index], self.value_rank[index], self.requires_grad[index])
                    for index in range(first, first + step.n_outputs)
                )
                raw = step.raw_inputs
                ins = tuple(
                    infos[index] if j in raw or not schedule._is_variable[index] else index
                    for j, index in enumerate(step.inputs)
                )
                links.append((k, self.node_rank[k], outs, ins, self.node_grad[k]))
        return links


def _backward_order(schedule: StaticScheduleFunction, plan: Plan, roots: tuple[bool, ...]) -> list[Any]:
    """The steps whose backward define-by-run's traversal calls, in its order: per
    step, its index, its target input positions, its first output's table index, its
    number of outputs, and per target (position, table index, shape, dtype, whether
    the step takes the value once) where the gradient goes. Functions in decreasing rank, ties in the order they
    were queued (a function is queued when a gradient first reaches one of its outputs).

    Outside functions interleave with these in define-by-run, but never change their
    relative order (only functions of the chain queue functions of the chain), so the
    order restricted to the chain is this one. It assumes that each backward returns a
    gradient for each of its targets; a ``None`` instead changes nothing but, for a
    value that three or more functions send gradients to, possibly the order of the sum.
    """
    creator = schedule._creator_step
    requires_grad = plan.requires_grad
    node_rank = plan.node_rank
    steps = schedule.steps
    has_grad: set[int] = set()
    heap: list[tuple[int, int, int]] = []
    queued: dict[int, int] = {}  # step -> when it was queued

    def reach(index: int) -> None:
        # A gradient reaches the value: its creator is queued (once).
        has_grad.add(index)
        k = creator[index]
        if k is not None and k not in queued:
            queued[k] = len(queued)
            heapq.heappush(heap, (-node_rank[k], queued[k], k))

    for index, has in zip(schedule._output_values, roots):
        if has:
            reach(index)
    order = []
    while heap:
        k = heapq.heappop(heap)[2]
        step = steps[k]
        first = schedule._first[k]
        if not any(index in has_grad for index in range(first, first + step.n_outputs)):
            continue
        raw = step.raw_inputs
        target = tuple(j for j, index in enumerate(step.inputs) if j not in raw and requires_grad[index])
        if not target:
            continue
        infos = schedule._value_infos
        inputs = step.inputs
        routes = tuple((i, inputs[i], *infos[inputs[i]], inputs.count(inputs[i]) == 1) for i in target)
        order.append((k, target, first, step.n_outputs, routes))
        for j in target:
            reach(step.inputs[j])
    return order


def forward(schedule: StaticScheduleFunction, args: list[Any], enable_backprop: bool) -> Any:
    """Replay ``schedule`` on the flattened arguments ``args`` of the chain, fast (from
    a CUDA Graph where :mod:`~chainer.graph_optimizations._cuda_graph` takes the call)."""
    if schedule._cuda_graphs is not False:
        results = _cuda_graph.forward(schedule, args, enable_backprop)
        if results is not None:
            return results
    externals = schedule._externals
    table = [v._array if isinstance(v, _Variable) else v for v in externals]
    for a in args:
        table.append(a._array if isinstance(a, _Variable) else a)
    nodes, retained_inputs = run_steps(schedule, table)
    schedule.n_replays += 1
    return finish(schedule, externals + args, table, nodes, retained_inputs, enable_backprop, ScheduleNode)


def run_steps(schedule: StaticScheduleFunction, table: list[Any]) -> tuple[list[Any], list[Any]]:
    """Run the recorded steps' forward on the value table (its externals and arguments
    given), extending it with their outputs; returns the nodes and their retained inputs."""
    nodes: list[Any] = []
    retained_inputs: list[Any] = []
    extend = table.extend
    for step in schedule.steps:
        ins = tuple([table[i] for i in step.inputs])
        if step.code is not None:
            extend(_schedule._run_code(step, list(ins)))
            nodes.append(None)
            retained_inputs.append(None)
        else:
            node = step.make(False)
            outputs = _schedule.run_forward(node, ins)
            retain = node._input_indexes_to_retain
            retained_inputs.append(None if retain is None else tuple([(i, ins[i]) for i in retain]))
            retain = node._output_indexes_to_retain
            if retain is not None:
                node._retained_output_data = tuple([outputs[i] for i in retain])
            nodes.append(node)
            extend(outputs)
        del ins
        for i in step.release:
            table[i] = None
    return nodes, retained_inputs


def finish(
    schedule: StaticScheduleFunction,
    objects: list[Any],
    table: list[Any],
    nodes: list[Any],
    retained_inputs: list[Any],
    enable_backprop: bool,
    node_class: Any,
    *node_args: Any,
) -> list[Any]:
    """The replay's results: the outputs of the value table as variables, with one
    ``node_class`` node as their creator where they require a gradient (made as
    ``node_class(*node_args, schedule, plan, nodes, retained_inputs, input_nodes)``)."""
    inputs = [objects[i] for i in schedule._grad_inputs]
    ranks = []
    flags = []
    input_nodes = []
    for v in inputs:
        node = v._node or v.node
        input_nodes.append(node)
        ranks.append(node._rank)
        flags.append(v._requires_grad)
    key = (tuple(ranks), tuple(flags))
    plan = schedule._plans.get(key)
    if plan is None:
        plan = schedule._plans[key] = Plan(schedule, *key)
    requires_grad = plan.requires_grad
    made: dict[int, Any] = {}
    if enable_backprop and any(flags):
        owner = node_class(*node_args, schedule, plan, nodes, retained_inputs, tuple(input_nodes))
        output_refs = []
        for index in schedule._output_values:
            y = table[index]
            if requires_grad[index]:
                var = _output_variable(y, True)
                function_node._output_node(var, y, owner, plan.output_rank[index])
                output_refs.append(_weakref(var._node))
            else:
                var = _output_variable(y, False)
                output_refs.append(None)
            made[index] = var
        owner.outputs = tuple([_NO_VARIABLE if r is None else r for r in output_refs])
    else:
        for index in schedule._output_values:
            made[index] = _output_variable(table[index], requires_grad[index])
    first_output = schedule._first_output
    results = []
    for index, raw in schedule._outputs:
        if index >= first_output:
            results.append(made[index] if index in made and not raw else table[index])
        else:
            value = objects[index]
            results.append(variable.as_array(value) if raw else value)
    return results


class ScheduleNode(function_node.FunctionNode):
    """The creator of a fast replay's outputs: the whole static chain as one function.

    Its inputs are the chain's variable arguments and the outside variables it binds
    (parameters); its backward runs the recorded backward schedule (see the module's
    docstring). ``chain(x).creator`` is such a node after the first call.
    """

    def __init__(
        self,
        schedule: StaticScheduleFunction,
        plan: Plan,
        nodes: list[Any],
        retained_inputs: list[Any],
        input_nodes: tuple[variable.VariableNode, ...],
    ) -> None:
        self.schedule = schedule
        self._plan = plan
        self._nodes = nodes
        self._retained_inputs = retained_inputs
        self._values: list[Any] | None = None
        self.inputs = input_nodes
        self.rank = plan.rank

    @property
    def label(self) -> str:
        return "StaticScheduleFunction"

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        raise RuntimeError(
            "StaticScheduleFunction: this node is made by a replay of chainer.static_graph and cannot be applied"
        )

    def _link(self) -> list[Any]:
        """Link the recorded nodes into the graph define-by-run would have built, with
        variable nodes for the values (once per replay; backward needs it: functions
        read their retained inputs and outputs through their nodes)."""
        values = self._values
        if values is not None:
            return values
        schedule = self.schedule
        plan = self._plan
        values = [None] * schedule._n_values
        for index, node in zip(schedule._grad_inputs, self.inputs):
            values[index] = node
        nodes = self._nodes
        retained_inputs = self._retained_inputs
        new = _new
        VariableNode = _VariableNode
        gone = _NO_VARIABLE
        for k, rank, out_specs, in_specs, linked in plan.links(schedule):
            node = nodes[k]
            node.rank = rank
            outputs = []
            for index, shape, dtype, out_rank, requires_grad in out_specs:
                values[index] = out = new(VariableNode)
                out._variable = gone
                out.creator_node = node
                out.data = out.name = None
                out._requires_grad = requires_grad
                out._rank = out_rank
                out.shape = shape
                out.dtype = dtype
                outputs.append(out)
            if not linked:
                # No input requires a gradient: define-by-run records no edges either.
                continue
            ins = []
            for spec in in_specs:
                ins.append(values[spec] if type(spec) is int else _constant(spec))
            node.inputs = tuple(ins)
            node.outputs = tuple([_weakref(out) for out in outputs])
            retained = retained_inputs[k]
            if retained is not None:
                for i, array in retained:
                    ins[i].data = array
            retain = node._output_indexes_to_retain
            if retain is not None:
                for i, array in zip(retain, node._retained_output_data):
                    outputs[i].data = array
        # The value nodes live as long as this node (the recorded nodes refer to their
        # outputs weakly, as in any graph).
        self._values = values
        self._retained_inputs = None
        return values

    def backward(self, target_input_indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        schedule = self.schedule
        plan = self._plan
        values = self._link()
        outputs = schedule._output_values
        roots = tuple([g is not None for g in grad_outputs])
        order = plan.orders.get(roots)
        if order is None:
            order = plan.orders[roots] = _backward_order(schedule, plan, roots)
        grads: list[Any] = [None] * schedule._n_values
        for index, g in zip(outputs, grad_outputs):
            grads[index] = g
        flags = configuration.hot_flags()
        debug = flags.debug
        hooks = function_hook._state.function_hooks
        # The generic mode: sums as differentiable Variable additions (double backprop),
        # hooks called around each function, debug checks, as the generic traversal does.
        generic = bool(flags.enable_backprop or debug or hooks)
        nodes = self._nodes
        leaves: Any = None  # table indexes of the inputs that are leaves (parameters)
        owned: dict[int, Any] = {}  # gradient buffers this backward made and may add into
        for k, target, first, n_out, routes in order:
            func = nodes[k]
            if n_out == 1:
                gy = grads[first]
                if gy is None:
                    continue
                grads[first] = None
                gys: tuple[Any, ...] = (gy,)
            else:
                gys = tuple(grads[first : first + n_out])
                if all(g is None for g in gys):
                    continue
                grads[first : first + n_out] = [None] * n_out
            if generic and hooks:
                all_hooks = func._active_hooks()
                in_data = tuple([x.data for x in func.inputs])
                out_grad = tuple([None if g is None else g._array for g in gys])
                for hook in all_hooks:
                    hook.backward_preprocess(func, in_data, out_grad)
            else:
                all_hooks = None
            leaf_grads = None
            if not generic and func._leaf_gradient_inputs and not func._has_custom_accumulate:
                if leaves is None:
                    leaves = {i for i, x in zip(schedule._grad_inputs, self.inputs) if x.creator_node is None}
                routes, leaf_grads = _leaf_gradients(func, routes, gys, grads, leaves, owned)
                target = tuple([r[0] for r in routes])
            try:
                if not target:
                    gxs: tuple[Any, ...] = ()
                elif func._has_custom_accumulate:
                    gxs = _accumulated_backward(func, routes, gys, grads)
                else:
                    gxs = func.backward(target, gys)
                    if len(gxs) != len(target):
                        gxs = _backprop._select_targets(func, target, gxs)
                if debug:
                    _backprop._check_grads_debug(func, target, gxs)
            except Exception as exc:
                exc.add_note(f"(raised in the backward of {func.label}, replayed by chainer.static_graph)")
                raise
            if all_hooks:
                for hook in all_hooks:
                    hook.backward_postprocess(func, in_data, out_grad)
            pairs: Any = zip(routes, gxs)
            if leaf_grads:
                pairs = [*pairs, *leaf_grads]
            for (i, index, shape, dtype, _), gx in pairs:
                if gx is None:
                    continue
                if type(gx) is not _Variable:
                    gx = _backprop._as_grad_variable(gx)
                array = gx._array
                if array.shape != shape or (array.dtype is not dtype and array.dtype != dtype):
                    raise _backprop._grad_mismatch(func, i, gx, values[index])
                previous = grads[index]
                if previous is None:
                    grads[index] = gx
                elif generic:
                    grads[index] = previous + gx
                else:
                    grads[index] = _sum(previous, gx)
        grad_inputs = schedule._grad_inputs
        return tuple([grads[grad_inputs[i]] for i in target_input_indexes])


def _leaf_gradients(
    func: Any, routes: tuple[Any, ...], gys: tuple[Any, ...], grads: list[Any], leaves: set[int], owned: dict[int, Any]
) -> tuple[tuple[Any, ...], list[Any]]:
    """The gradients of the parameters among ``routes`` that ``func`` computes as arrays
    (``FunctionNode._leaf_gradient_job``), added into the sum's buffer where it can, as
    the generic traversal does it. Returns the routes left to ``func.backward`` and the
    other gradients computed, as (route, gradient) pairs."""
    kept = []
    computed = []
    for route in routes:
        i, index, shape, dtype, single = route
        if not single or index not in leaves or i not in func._leaf_gradient_inputs:
            kept.append(route)
            continue
        job = func._leaf_gradient_job(i, gys)
        if job is None:
            kept.append(route)
            continue
        compute, requires_grad, accumulate = job
        previous = grads[index]
        if accumulate is not None and previous is not None and previous is owned.get(index):
            if accumulate(previous._array):
                if requires_grad:
                    previous._requires_grad = True
                continue
        grad = _Variable._init_unchecked(compute(), requires_grad=requires_grad)
        if previous is None and grad._array.shape == shape and grad._array.dtype == dtype:
            # A new array nothing else holds: the buffer of the sum from the start.
            grads[index] = owned[index] = grad
            continue
        computed.append((route, grad))
    return tuple(kept), computed


def _sum(previous: variable.Variable, gx: variable.Variable) -> variable.Variable:
    """``previous + gx`` as the generic traversal sums two gradients of a node: NumPy's
    addition of the arrays (which Add.forward runs too), or the Variable addition."""
    a, b = previous._array, gx._array
    if type(a) is _ndarray and type(b) is _ndarray and a.shape == b.shape and a.dtype == b.dtype:
        return _Variable._init_unchecked(
            numpy.asarray(a + b), requires_grad=previous._requires_grad or gx._requires_grad
        )
    return previous + gx


def _accumulated_backward(
    func: Any, routes: tuple[Any, ...], gys: tuple[Any, ...], grads: list[Any]
) -> tuple[Any, ...]:
    # A function that fuses the accumulation into its backward gets the sums so far,
    # once per distinct input, as the generic traversal hands them.
    seen: set[int] = set()
    accumulated = []
    for _, index, *_ in routes:
        if index in seen:
            accumulated.append(None)
        else:
            accumulated.append(grads[index])
            grads[index] = None
        seen.add(index)
    return func.backward_accumulate(tuple(r[0] for r in routes), gys, tuple(accumulated))


# At the end: _cuda_graph subclasses ScheduleNode lazily and calls run_steps and finish.
from chainer.graph_optimizations import _cuda_graph  # noqa: E402
