"""Recording the functions a static chain applies, and replaying them.

The first call of a static chain runs its define-by-run code while a recorder (a
function hook) notes every top-level :class:`~chainer.FunctionNode` application: the
node's class, its state *before* forward ran (what its constructor set up), where each
input came from, and the arrays it produced. Later calls replay that list: each step
builds a fresh node from the saved state and runs it on the current inputs. Nothing
of the Python code around the functions runs again (wrappers, argument checks, link
dispatch, type checks). The fast replay (:mod:`chainer.graph_optimizations._replay`)
runs the nodes' forward on arrays and gives the outputs one creator whose backward
replays the recorded backward; the other replay (``_replay_graph``) passes every node
through :meth:`FunctionNode.apply`, so graph, hooks and debug mode are define-by-run's.

Where a step's input comes from is one of: an argument of the chain (as passed, or
its array), an output of an earlier step (its variable, or its array when the code
passed the array itself), or an outside variable bound by identity (parameters, and
constants created by the define-by-run code).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator
from typing import Any

import numpy

from chainer import configuration, function, function_hook, function_node, variable
from chainer.graph_optimizations import _replay

_new = object.__new__
_Variable = variable.Variable


def _snapshot(node: function_node.FunctionNode) -> Callable[[bool], function_node.FunctionNode]:
    """A factory of fresh nodes in the state ``node`` has now (before its forward).

    The factory takes ``check_types``: when false the new node skips its type check,
    which passed when the schedule was recorded for these very shapes and dtypes.
    """
    cls = type(node)
    state = dict(node.__dict__)
    if isinstance(node, function.FunctionAdapter):
        # An old-style Function keeps per-call state in itself: each replay needs its own.
        old = node._function
        old_cls, old_state = type(old), dict(old.__dict__)

        def make_adapter(check_types: bool) -> function_node.FunctionNode:
            fresh = _new(cls)
            fresh.__dict__.update(state)
            fn = _new(old_cls)
            fn.__dict__.update(old_state)
            fn._node = fresh
            fresh._function = fn
            if not check_types:
                fresh._has_type_check = False
            return fresh

        return make_adapter
    fast_state = dict(state, _has_type_check=False)

    def make(check_types: bool) -> function_node.FunctionNode:
        fresh = _new(cls)
        fresh.__dict__.update(state if check_types else fast_state)
        return fresh

    return make


_ndarray = numpy.ndarray
_output_variable = function_node._output_variable
_output_node = function_node._output_node


def run_forward(node: function_node.FunctionNode, in_data: tuple[Any, ...]) -> tuple[Any, ...]:
    """``node.forward(in_data)``, its outputs checked as :meth:`FunctionNode.apply` checks them."""
    try:
        outputs = node.forward(in_data)
    except Exception as exc:
        exc.add_note(f"(raised in the forward of {node.label}, replayed by chainer.static_graph)")
        raise
    if type(outputs) is not tuple:
        raise TypeError(f"{node.label}.forward must return a tuple of arrays, got {type(outputs).__name__}")
    for y in outputs:
        if type(y) is not _ndarray:
            return node._checked_outputs(outputs)
    return outputs


def _replay_apply(node: function_node.FunctionNode, ins: list[Any], enable_backprop: bool) -> list[Any]:
    """:meth:`FunctionNode.apply` without what a replay does not need.

    The type check passed when the schedule was recorded for these shapes, dtypes and
    devices; no hook is active and debug mode is off (the replay checks both and uses
    ``apply`` otherwise). The graph built is the one ``apply`` builds.
    """
    in_data = []
    requires_grad = False
    for x in ins:
        if isinstance(x, _Variable):
            in_data.append(x._array)
            if x._requires_grad:
                requires_grad = True
        else:
            in_data.append(x)
    in_data_t = tuple(in_data)
    outputs = run_forward(node, in_data_t)
    if not (requires_grad and enable_backprop):
        return [_output_variable(y, requires_grad) for y in outputs]
    rank = 0
    input_nodes = []
    for x in ins:
        if not isinstance(x, _Variable):
            x = _Variable(x, requires_grad=False)
        var_node = x._node or x.node
        if var_node.rank > rank:
            rank = var_node.rank
        input_nodes.append(var_node)
    node.rank = rank
    node.inputs = inputs = tuple(input_nodes)
    ret = []
    for y in outputs:
        var = _output_variable(y, True)
        _output_node(var, y, node, rank + 1)
        ret.append(var)
    node.outputs = tuple([weakref.ref(v._node) for v in ret])
    retain = node._input_indexes_to_retain
    if retain is not None:
        for i in retain:
            inputs[i].data = in_data_t[i]
    retain = node._output_indexes_to_retain
    if retain is not None:
        kept = []
        for i in retain:
            ret[i]._node.data = outputs[i]
            kept.append(outputs[i])
        node._retained_output_data = tuple(kept)
    return ret


class _Ref:
    """Where a value of the schedule comes from (used while recording)."""

    __slots__ = ("as_array", "index")

    def __init__(self, index: int, as_array: bool) -> None:
        self.index = index
        self.as_array = as_array


class Step:
    """One entry of a schedule: a function application or a ``static_code`` call."""

    __slots__ = ("code", "inputs", "label", "make", "n_outputs", "plain", "raw_inputs", "release", "structure")

    def __init__(self, label: str, make: Any, inputs: tuple[int, ...], raw_inputs: tuple[int, ...], n_outputs: int):
        self.label = label
        self.make = make
        self.inputs = inputs  # table indexes
        self.raw_inputs = raw_inputs  # positions (in inputs) passed as arrays rather than variables
        self.n_outputs = n_outputs
        self.code: Any = None
        self.structure: Any = None
        # Whether the node can take the lean replay path (no hooks of its own).
        self.plain = True
        # Table entries last used by this step, dropped after it (as define-by-run drops
        # intermediate variables nobody holds).
        self.release: tuple[int, ...] = ()


class Recorder(function_hook.FunctionHook):
    """Function hook that turns one define-by-run call into a :class:`StaticScheduleFunction`."""

    name = "_StaticGraphRecorder"

    def __init__(self, arg_leaves: list[Any]) -> None:
        # The value table of the schedule: outside variables first (filled as they are
        # met), then the chain's arguments, then step outputs. While recording, outside
        # variables get negative provisional indexes.
        self._externals: list[Any] = []
        self._external_index: dict[int, int] = {}
        self._n_args = len(arg_leaves)
        # Variables that are values of the table themselves: arguments and what
        # static_code functions returned.
        self._var_index: dict[int, int] = {}
        self._array_source: dict[int, int] = {}
        self._keep: list[Any] = []  # holds recorded arrays so that their ids stay unique
        self._output_creator: dict[int, Any] = {}  # table index -> function that made it
        self._next = self._n_args
        self.steps: list[Step] = []
        self.unsupported: str | None = None
        self._depth = 0
        self._pending: Any = None
        self._rng_mark: Any = None
        # Per value of the table from the arguments on: (shape, dtype), and whether it
        # is a variable (rather than an array) in define-by-run.
        self._infos: list[tuple[Any, Any]] = []
        self._is_variable: list[bool] = []
        for i, leaf in enumerate(arg_leaves):
            if isinstance(leaf, _Variable):
                self._var_index[id(leaf)] = i
                array = leaf._array
            else:
                array = leaf
            self._note_value(array, isinstance(leaf, _Variable))
            if array is not None and id(array) not in self._array_source:
                self._array_source[id(array)] = i
                self._keep.append(array)

    def _note_value(self, array: Any, is_variable: bool) -> None:
        self._infos.append((None, None) if array is None else (array.shape, array.dtype))
        self._is_variable.append(is_variable)

    # -- random numbers drawn outside FunctionNode.forward would be frozen by a replay ---

    def mark_rng(self) -> None:
        self._rng_mark = numpy.random.get_state(legacy=False)

    def check_rng(self, where: str) -> None:
        if self.unsupported is not None or self._rng_mark is None:
            return
        now = numpy.random.get_state(legacy=False)
        mark = self._rng_mark
        if now["state"]["pos"] != mark["state"]["pos"] or not numpy.array_equal(
            now["state"]["key"], mark["state"]["key"]
        ):
            self.unsupported = (
                f"random numbers were drawn outside of a FunctionNode.forward ({where}); a replay would reuse them"
            )

    # -- hook callbacks -----------------------------------------------------------------------

    def forward_preprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        if self._depth == 0:
            self.check_rng(f"before {function.label}")
            self._pending = (function, _snapshot(function), not function._local_function_hooks)
        self._depth += 1

    def forward_postprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self._depth -= 1

    def backward_preprocess(self, function: Any, in_data: tuple[Any, ...], out_grad: tuple[Any, ...]) -> None:
        if self.unsupported is None:
            self.unsupported = "backpropagation ran inside the static chain"

    def _observe_apply(self, function: Any, input_vars: list[Any], outputs: tuple[Any, ...]) -> None:
        if self._depth != 0:
            return
        pending, make, plain = self._pending
        self._pending = None
        if pending is not function:  # cannot happen unless a hook misbehaves
            self.unsupported = f"could not follow the application of {function.label}"
            return
        refs = [self._ref_of_variable(v) for v in input_vars]
        first = self._next
        for j, y in enumerate(outputs):
            self._array_source[id(y)] = first + j
            self._output_creator[first + j] = function
            self._keep.append(y)
            self._note_value(y, True)
        self._next += len(outputs)
        step = self._add_step(function.label, make, refs, len(outputs))
        step.plain = plain
        self._keep.append(function)
        self.mark_rng()

    def _add_step(self, label: str, make: Any, refs: list[_Ref], n_outputs: int) -> Step:
        step = Step(
            label,
            make,
            tuple(r.index for r in refs),
            tuple(i for i, r in enumerate(refs) if r.as_array),
            n_outputs,
        )
        self.steps.append(step)
        return step

    # -- where a value comes from -----------------------------------------------------------

    def _ref_of_variable(self, v: Any) -> _Ref:
        if not isinstance(v, _Variable):
            return self._ref_of_array(v)
        index = self._var_index.get(id(v))
        if index is not None:
            return _Ref(index, False)
        source = self._array_source.get(id(v._array))
        if source is not None:
            creator = self._output_creator.get(source)
            if creator is not None:
                # The output variable itself, or (when the graph was recorded but this
                # variable is not part of it) a new variable around its array.
                if creator.inputs is None or v.creator_node is creator:
                    return _Ref(source, False)
                return _Ref(source, True)
            return _Ref(source, True)  # a new variable around an argument's array
        return self._external(v)

    def _ref_of_array(self, a: Any) -> _Ref:
        source = self._array_source.get(id(a))
        if source is not None:
            return _Ref(source, True)
        return self._external(a)

    def _external(self, value: Any) -> _Ref:
        index = self._external_index.get(id(value))
        if index is None:
            self._externals.append(value)
            index = -len(self._externals)
            self._external_index[id(value)] = index
        return _Ref(index, False)

    # -- static_code ------------------------------------------------------------------------------

    def record_code(self, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any], result: Any) -> None:
        """Record a call of a ``static_code`` function, replayed as is."""
        leaves: list[Any] = []
        structure = _flatten((args, kwargs), leaves, arrays_only=True)
        refs = [self._ref_of_variable(v) for v in leaves]
        out_leaves: list[Any] = []
        out_structure = _flatten(result, out_leaves, arrays_only=True)
        first = self._next
        for j, y in enumerate(out_leaves):
            if isinstance(y, _Variable):
                self._var_index[id(y)] = first + j
                array = y._array
            else:
                array = y
            self._note_value(array, isinstance(y, _Variable))
            self._array_source[id(array)] = first + j
            self._keep.append(array)
        self._next += len(out_leaves)
        step = self._add_step(getattr(func, "__qualname__", repr(func)), None, refs, len(out_leaves))
        step.code = func
        step.structure = (structure, out_structure)
        self._keep.append(result)

    # -- the result -------------------------------------------------------------------------------

    def build(self, outputs: Any, owner: str) -> StaticScheduleFunction:
        leaves: list[Any] = []
        structure = _flatten(outputs, leaves, arrays_only=True)
        refs = [self._ref_of_variable(v) for v in leaves]
        n_ext = len(self._externals)

        def place(index: int) -> int:
            # Outside values go first in the table: -1 -> 0, -2 -> 1, ...; the rest shift.
            return -index - 1 if index < 0 else index + n_ext

        for step in self.steps:
            step.inputs = tuple(place(i) for i in step.inputs)
        outs = tuple((place(r.index), r.as_array) for r in refs)
        first_output = n_ext + self._n_args
        last_use: dict[int, int] = {}
        for k, step in enumerate(self.steps):
            for i in step.inputs:
                if i >= first_output:
                    last_use[i] = k
        returned = {i for i, _ in outs}
        for index, k in last_use.items():
            if index not in returned:
                self.steps[k].release += (index,)
        values: list[tuple[tuple[Any, Any], bool]] = []
        for v in self._externals:
            array = v._array if isinstance(v, _Variable) else v
            values.append(((None, None) if array is None else (array.shape, array.dtype), isinstance(v, _Variable)))
        values.extend(zip(self._infos, self._is_variable))
        return StaticScheduleFunction(owner, self._externals, self._n_args, self.steps, structure, outs, values)


_ARRAY_TYPES: tuple[type, ...] = (numpy.ndarray,)


def _is_array(x: Any) -> bool:
    if isinstance(x, _ARRAY_TYPES):
        return True
    module = type(x).__module__
    return module.startswith("cupy") and hasattr(x, "shape")


def _flatten(obj: Any, leaves: list[Any], arrays_only: bool) -> Any:
    """Structure of ``obj`` with variables and arrays taken out into ``leaves``
    (lists, tuples and dicts are traversed). Other values stay in the structure."""
    if isinstance(obj, _Variable) or _is_array(obj):
        leaves.append(obj)
        return _LEAF
    if isinstance(obj, (list, tuple)):
        return (type(obj), tuple(_flatten(o, leaves, arrays_only) for o in obj))
    if isinstance(obj, dict):
        return (dict, tuple((k, _flatten(v, leaves, arrays_only)) for k, v in obj.items()))
    return (_CONST, obj)


_LEAF = object()
_CONST = object()


def _unflatten(structure: Any, leaves: Iterator[Any]) -> Any:
    if structure is _LEAF:
        return next(leaves)
    kind, content = structure
    if kind is _CONST:
        return content
    if kind is dict:
        return {k: _unflatten(v, leaves) for k, v in content}
    items = [_unflatten(s, leaves) for s in content]
    if kind is list:
        return items
    if kind is tuple:
        return tuple(items)
    return kind(*items) if hasattr(kind, "_fields") else kind(items)


class StaticScheduleFunction:
    """A recorded static schedule of a static chain, and its replay (:meth:`forward`).

    Attributes:
        steps: The recorded :class:`Step` s, in order (function applications and
            ``static_code`` calls).
        owner: Which chain method the schedule was recorded from.
        fast_replay: Why replays build define-by-run's graph rather than one
            ``StaticScheduleFunction`` node with a recorded backward (see
            :mod:`chainer.graph_optimizations._replay`), or ``None`` if they need not.
        define_by_run_graph: Set by ``static_graph(enable_double_backprop=True)``:
            replays always build define-by-run's graph.
        cuda_graph_reason: Why the fast replays of this schedule do not run from CUDA
            Graphs (see :mod:`chainer.graph_optimizations._cuda_graph`), or ``None``
            while they do or may (CuPy arrays, after the first replay).

    To debug a replay, step through :meth:`forward`; :meth:`describe` lists the schedule.
    """

    def __init__(
        self,
        owner: str,
        externals: list[Any],
        n_args: int,
        steps: list[Step],
        out_structure: Any,
        outputs: tuple[tuple[int, bool], ...],
        values: list[tuple[tuple[Any, Any], bool]] | None = None,
    ) -> None:
        self.owner = owner
        self.steps = steps
        self._externals = externals
        self._n_args = n_args
        self._out_structure = out_structure
        self._outputs = outputs
        # Replays reuse the schedule only while the outside arrays keep the device,
        # shape and dtype they had when it was recorded (usually they are the very same
        # arrays, updated in place).
        self._external_meta = [[v, v._array, ArrayInfo(v._array)] for v in externals if isinstance(v, _Variable)]
        self._external_ids = frozenset(id(v) for v in externals if isinstance(v, _Variable))
        self.n_replays = 0
        self.define_by_run_graph = False
        self.fast_replay: str | None = "the schedule was built without the shapes of its values"
        self._plans: dict[Any, Any] = {}
        # The CUDA Graphs of its fast replays on the GPU (_cuda_graph.Graphs), None before
        # the first replay on CuPy arrays, False where they are not used (reason in
        # cuda_graph_reason).
        self._cuda_graphs: Any = None
        self.cuda_graph_reason: str | None = None
        if values is not None:
            self._analyse(values)

    def _analyse(self, values: list[tuple[tuple[Any, Any], bool]]) -> None:
        """What a fast replay needs of the table's structure, and whether it applies."""
        n_ext = len(self._externals)
        first_output = self._first_output = n_ext + self._n_args
        self._value_infos = [info for info, _ in values]
        is_variable = self._is_variable = [v for _, v in values]
        self._n_values = len(values)
        self._variable_args = tuple(i for i in range(self._n_args) if is_variable[n_ext + i])
        creator: list[int | None] = [None] * len(values)
        first = []
        position = first_output
        for k, step in enumerate(self.steps):
            first.append(position)
            if step.code is None:
                for index in range(position, position + step.n_outputs):
                    creator[index] = k
            position += step.n_outputs
        self._first = first
        self._creator_step = creator
        reason = None
        grad_inputs = set()
        used = set()
        for k, step in enumerate(self.steps):
            if not step.plain:
                reason = f"{step.label} has function hooks of its own"
            code_outputs = range(first[k], first[k] + step.n_outputs) if step.code is not None else ()
            if any(is_variable[i] for i in code_outputs):
                reason = f"static_code {step.label} returns a variable"
            for j, index in enumerate(step.inputs):
                if j in step.raw_inputs or not is_variable[index]:
                    continue
                used.add(index)
                if step.code is not None:
                    reason = f"static_code {step.label} takes a variable"
                elif index < first_output:
                    grad_inputs.add(index)
        output_values = []
        for index, raw in self._outputs:
            if raw or creator[index] is None:
                continue
            if index in used:
                reason = "the chain returns a variable that it also applies functions to"
            if index not in output_values:
                output_values.append(index)
        self._grad_inputs = tuple(sorted(grad_inputs))
        self._output_values = tuple(output_values)
        self.fast_replay = reason

    def is_valid(self) -> bool:
        """Whether the parameters and other outside variables still match the recording."""
        for entry in self._external_meta:
            v, array, meta = entry
            if v._array is not array:
                if ArrayInfo(v._array) != meta:
                    return False
                entry[1] = v._array
        return True

    def forward(self, args: list[Any]) -> Any:
        """Replay the schedule on the flattened arguments ``args`` of the chain.

        The fast replay (:func:`chainer.graph_optimizations._replay.forward`) unless a
        function hook is active, debug mode is on, the schedule cannot take it
        (:attr:`fast_replay`), replays must build define-by-run's graph
        (:attr:`define_by_run_graph`), or a variable comes twice among the arguments
        and parameters (then their gradients would be summed in another order).
        """
        flags = configuration.hot_flags()
        if (
            self.fast_replay is None
            and not self.define_by_run_graph
            and not flags.debug
            and not function_hook._state.function_hooks
            and self._distinct(args)
        ):
            return _unflatten(self._out_structure, iter(_replay.forward(self, args, flags.enable_backprop)))
        return self._replay_graph(args, flags)

    def _distinct(self, args: list[Any]) -> bool:
        positions = self._variable_args
        if not positions:
            return True
        external = self._external_ids
        seen = set()
        for i in positions:
            key = id(args[i])
            if key in external or key in seen:
                return False
            seen.add(key)
        return True

    def _replay_graph(self, args: list[Any], flags: Any) -> Any:
        """The replay through :meth:`FunctionNode.apply`: define-by-run's graph, and its
        generic backward."""
        debug = flags.debug
        # Hooks and debug mode see the full FunctionNode.apply; otherwise the lean path.
        lean = not (debug or function_hook._state.function_hooks)
        enable_backprop = flags.enable_backprop
        table = self._externals + args
        extend = table.extend
        as_array = variable.as_array
        for step in self.steps:
            ins = [table[i] for i in step.inputs]
            for i in step.raw_inputs:
                ins[i] = as_array(ins[i])
            if step.code is not None:
                extend(_run_code(step, ins))
            elif lean and step.plain:
                extend(_replay_apply(step.make(False), ins, enable_backprop))
            else:
                extend(step.make(debug).apply(ins))
            del ins
            for i in step.release:
                table[i] = None
        self.n_replays += 1
        results = [as_array(table[i]) if raw else table[i] for i, raw in self._outputs]
        return _unflatten(self._out_structure, iter(results))

    def describe(self) -> str:
        """The schedule as text, one step per line."""
        n_ext = len(self._externals)

        def name(i: int) -> str:
            if i < n_ext:
                v = self._externals[i]
                label = getattr(v, "name", None)
                return f"external:{label}" if label else f"external{i}"
            i -= n_ext
            if i < self._n_args:
                return f"arg{i}"
            return f"v{i - self._n_args}"

        lines = [f"static schedule of {self.owner}: {len(self.steps)} steps"]
        produced = n_ext + self._n_args
        for k, step in enumerate(self.steps):
            ins = ", ".join(name(i) + (".array" if j in step.raw_inputs else "") for j, i in enumerate(step.inputs))
            outs = ", ".join(name(produced + j) for j in range(step.n_outputs))
            produced += step.n_outputs
            kind = "static_code " if step.code is not None else ""
            lines.append(f"  #{k} {kind}{step.label}({ins}) -> ({outs})")
        lines.append("  returns " + ", ".join(name(i) for i, _ in self._outputs))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<StaticScheduleFunction of {self.owner}: {len(self.steps)} steps, {self.n_replays} replays>"

    # A schedule binds the parameters of the chain it was recorded on: a copy or pickle
    # of the chain (whose static_schedule attribute holds it) gets None instead.
    def __copy__(self) -> None:
        return None

    def __deepcopy__(self, memo: Any) -> None:
        return None

    def __reduce__(self) -> Any:
        return (type(None), ())


class ArrayInfo:
    """What a schedule requires of an array it binds: its type (hence backend), shape
    and dtype (all ``None`` for a missing array). Two infos are equal when an array of
    one may stand in for the other in a replay."""

    __slots__ = ("array_type", "shape", "dtype")

    def __init__(self, array: Any) -> None:
        if array is None:
            self.array_type = self.shape = self.dtype = None
        else:
            self.array_type = type(array)
            self.shape = tuple(array.shape)
            self.dtype = array.dtype

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ArrayInfo):
            return NotImplemented
        return (self.array_type, self.shape, self.dtype) == (other.array_type, other.shape, other.dtype)

    def __hash__(self) -> int:
        return hash((self.array_type, self.shape, self.dtype))

    def __repr__(self) -> str:
        if self.array_type is None:
            return "ArrayInfo(None)"
        return f"ArrayInfo({self.array_type.__name__}, shape={self.shape}, dtype={self.dtype})"


def _run_code(step: Step, ins: list[Any]) -> list[Any]:
    in_structure, out_structure = step.structure
    args, kwargs = _unflatten(in_structure, iter(ins))
    result = step.code(*args, **kwargs)
    leaves: list[Any] = []
    _flatten(result, leaves, arrays_only=True)
    if len(leaves) != step.n_outputs:
        raise RuntimeError(
            f"static_code {step.label} returned {len(leaves)} arrays or variables in a replay but "
            f"{step.n_outputs} when the schedule was recorded"
        )
    return leaves


def current_recorder() -> Recorder | None:
    """The recorder active in this thread (the function hook registry is per thread)."""
    hook = function_hook._state.function_hooks.get(Recorder.name)
    return hook if isinstance(hook, Recorder) else None
