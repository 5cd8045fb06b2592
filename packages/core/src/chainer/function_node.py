"""FunctionNode: a differentiable function and its node in the computational graph.

``apply`` is the hot path of the whole library: every operation on variables passes
through it. It does only what the current configuration needs: the light type check
(see :mod:`chainer.utils.type_check`; once per input signature for a class whose check
reads only its inputs' types), hooks only if some are active, and graph recording only
when backprop is enabled (its edges only when some input requires a gradient). One or
two variables in and one array out, the commonest calls, build no lists.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy

from chainer import _backprop, backend, configuration, function_hook, variable
from chainer.utils import error, type_check

_Variable = variable.Variable
_VariableNode = variable.VariableNode
_ndarray = numpy.ndarray
# Array types other than NumPy's found owned by a backend, as single outputs of a
# forward, by the generation of the plugins (loaded or removed ones change the owners).
_checked_output_types: dict[int, set[type]] = {}
_new = object.__new__
_hook_state = function_hook._state
_hot_values = configuration.hot_values
_hot = configuration._hot
_weakref = weakref.ref
# Marks inputs of more than one array type in apply() (then their devices are compared).
_MIXED = object()
# Bound on the input signatures remembered per class (see FunctionNode._check_types_once).
_MAX_SIGNATURES = 256
# Chainer 7's messages, which code may match.
_LAYOUT_ERROR = (
    "Inputs with non-standard layouts were given to a function without explicit `check_layout_forward` "
    "implementation.\nFunction: {}\nInput layouts: {}"
)
_MIXED_LAYOUT_ERROR = (
    "Inputs with mixed memory layouts were given to an elementwise function.\nFunction: {}\nInput layouts: {}"
)


def _output_variable(array: Any, requires_grad: bool) -> variable.Variable:
    # Variable.__init__ validates its argument; outputs of forward were checked already.
    var = _new(_Variable)
    var._array = array
    var._node = None
    var._grad_var = None
    var._requires_grad = requires_grad
    return var


def _output_node(var: variable.Variable, array: Any, creator: FunctionNode, rank: int) -> variable.VariableNode:
    node = _new(_VariableNode)
    node._variable = weakref.ref(var)
    node.creator_node = creator
    node.data = None
    node.name = None
    node._requires_grad = True
    node._rank = rank
    node.dtype = None if array is None else array.dtype
    node.shape = None if array is None else array.shape
    var._node = node
    return node


def _signature(in_data: tuple[Any, ...]) -> tuple[Any, ...]:
    """What a check of input types can read of ``in_data``: each array's type, dtype and shape."""
    return tuple([None if a is None else (type(a), a.dtype, a.shape) for a in in_data])


def _mixed_device_names(arrays: tuple[Any, ...] | list[Any]) -> str | None:
    """The devices of ``arrays`` (``None`` entries skipped), named in order, if there are
    several; ``None`` if they all live on one device."""
    devices = {backend.get_device_from_array(a) for a in arrays if a is not None}
    return ", ".join(sorted(str(d) for d in devices)) if len(devices) > 1 else None


class FunctionNode:
    """A differentiable function applied to variables, and its node in the graph.

    Subclasses implement :meth:`forward` (or :meth:`forward_cpu` and
    :meth:`forward_gpu`) on arrays, and :meth:`backward` with differentiable functions
    on variables, which makes double backprop work without extra code. An instance is
    one node of one graph: apply it once.

    Attributes:
        inputs: The input :class:`~chainer.variable.VariableNode` s (set when a graph is recorded).
        outputs: Weak references to the output nodes.
        rank: Depth in the graph; backward visits functions in decreasing rank.
    """

    inputs: tuple[variable.VariableNode, ...] | None = None
    outputs: tuple[weakref.ReferenceType[variable.VariableNode], ...] | None = None
    rank = 0
    stack: Any = None
    lazy_grad_sum = False
    _input_indexes_to_retain: tuple[int, ...] | None = None
    _output_indexes_to_retain: tuple[int, ...] | None = None
    _retained_output_data: tuple[Any, ...] | None = None
    _local_function_hooks: dict[str, function_hook.FunctionHook] | None = None
    # Whether the class states preconditions; apply() skips the check machinery if not.
    _has_type_check = False

    # Whether backward_accumulate is overridden; backprop calls backward() directly if not.
    _has_custom_accumulate = False

    # Memory layouts (see chainer.memory_layouts), set only where one is not standard.
    _input_layouts: tuple[Any, ...] | None = None
    _output_layouts: tuple[Any, ...] | None = None
    # Set to True by an elementwise function (every input and output of one shape after
    # broadcasting), whose computation on the raw arrays is the same in any memory
    # layout: the default check_layout_forward accepts inputs of one shared layout, which
    # every output gets.
    _layout_elementwise = False

    # Set to True by a class whose check_type_forward reads nothing but its inputs' array
    # types, dtypes and shapes (not the node's attributes, not the configuration): then
    # apply() runs the check once per input signature, not on every call. Declared by the
    # class that defines the check; a subclass that defines its own check declares anew.
    _type_check_reads_inputs_only = False
    # Per class with such a check: signature -> the check function it passed (see
    # _check_types_once); None where the check runs on every call.
    _passed_signatures: dict[Any, Any] | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._has_type_check = cls.check_type_forward is not FunctionNode.check_type_forward
        cls._has_custom_accumulate = cls.backward_accumulate is not FunctionNode.backward_accumulate
        owner = next(k for k in cls.__mro__ if "check_type_forward" in k.__dict__)
        cacheable = cls._has_type_check and owner.__dict__.get("_type_check_reads_inputs_only", False)
        cls._passed_signatures = {} if cacheable else None

    # Inputs whose gradient _leaf_gradient_job can compute without a graph; backprop
    # asks it where such an input is a leaf (a parameter) and no graph of the backward
    # is recorded (see chainer._backprop.traverse).
    _leaf_gradient_inputs: frozenset[int] = frozenset()

    def _leaf_gradient_job(self, index: int, grad_outputs: tuple[Any, ...]) -> tuple[Any, bool, Any] | None:
        """``(compute, requires_grad, accumulate)`` for input ``index`` (one of
        :attr:`_leaf_gradient_inputs`), or ``None`` to leave it to :meth:`backward`.

        ``compute()`` returns the gradient array, the bits :meth:`backward` would give,
        as a new array that nothing else holds (backprop adds later gradients into it);
        ``requires_grad`` is that of the variable backward would return; ``accumulate(buf)``
        (or ``None``) adds the gradient into the array ``buf`` in place, with the bits of
        ``buf + compute()``, and returns ``False`` where it declines. Backprop calls them
        with no graph recorded, no hooks and no debug mode."""
        return None

    # A per-instance name for :attr:`label` (one node class serving several functions).
    _label: str | None = None

    @property
    def label(self) -> str:
        """A short name for graphs and messages: ``_label`` if a node sets one, else the
        class name."""
        return self._label or type(self).__name__

    @property
    def _impl_name(self) -> str:
        # The implementing class's name, by which profiling hooks group their records.
        return type(self).__name__

    @property
    def local_function_hooks(self) -> dict[str, function_hook.FunctionHook]:
        """Hooks registered on this function only, by name."""
        if self._local_function_hooks is None:
            self._local_function_hooks = {}
        return self._local_function_hooks

    def apply(self, inputs: Sequence[Any]) -> tuple[variable.Variable, ...]:
        """Compute the outputs and, if backprop is enabled, record this node.

        Args:
            inputs: Variables or arrays (arrays are treated as constants).

        Returns:
            A tuple of output :class:`~chainer.Variable` s, even for a single output.
        """
        # Read now, once: a forward that applies other functions under a different
        # configuration (e.g. F.forget) refreshes the per-thread snapshot.
        version, enable_backprop, type_checking, debug = _hot.values
        if version != configuration._version:
            version, enable_backprop, type_checking, debug = _hot_values()
        try:
            n_inputs = len(inputs)
        except TypeError:  # an iterable without len(), which Chainer accepted too
            inputs = tuple(inputs)
            n_inputs = len(inputs)
        # One or two variables, the commonest calls, without lists.
        if n_inputs == 1 and isinstance(x := inputs[0], _Variable):
            input_vars: Sequence[Any] = (x,)
            in_data: tuple[Any, ...] = (x._array,)
            requires_grad = x._requires_grad
        elif n_inputs == 2 and isinstance(x := inputs[0], _Variable) and isinstance(x1 := inputs[1], _Variable):
            input_vars = (x, x1)
            in_data = (array := x._array, array1 := x1._array)
            requires_grad = x._requires_grad or x1._requires_grad
            if type(array) is not type(array1):
                self._check_devices(in_data)
        else:
            input_vars = []
            arrays = []
            requires_grad = False
            array_type: Any = None
            for x in inputs:
                if isinstance(x, _Variable):
                    array = x._array
                    if x._requires_grad:
                        requires_grad = True
                else:
                    array = x
                    if type(x) is not _ndarray:
                        variable._check_array(x, "chainer.Variable")
                    # An array is a constant: its variable gets a node only if a graph is recorded.
                    x = _output_variable(x, False)
                input_vars.append(x)
                arrays.append(array)
                if array_type is not type(array):
                    array_type = type(array) if array_type is None else _MIXED
            in_data = tuple(arrays)
            if array_type is _MIXED:
                self._check_devices(in_data)

        if type_checking and self._has_type_check:
            passed = self._passed_signatures
            if passed is None:
                type_check.run_check(self.check_type_forward, in_data, self.label)
            else:
                # The class's check reads only its inputs' types: it ran already if this
                # signature passed it (and neither the class nor this node replaced it).
                if n_inputs == 1:
                    a = in_data[0]
                    key: Any = None if a is None else (type(a), a.dtype, a.shape)
                else:
                    key = _signature(in_data)
                check = self.check_type_forward
                if passed.get(key) is not getattr(check, "__func__", None):
                    self._check_types_once(passed, key, in_data, check)

        if _hook_state.function_hooks or self._local_function_hooks:
            all_hooks = self._active_hooks()
            for hook in all_hooks:
                hook.forward_preprocess(self, in_data)
        else:
            all_hooks = None

        try:
            outputs = self.forward(in_data)
        except (MemoryError, OverflowError) as exc:
            # Absurd sizes (F.tile(x, 2**40)) fail in NumPy, whose message names no
            # function. Only an exception pays for this clause: the normal path is as before.
            raise error.allocation_error(
                exc, self.label, f"run the forward on inputs {error._format_array_props(in_data)}"
            ) from exc
        except Exception as exc:
            exc.add_note(f"(raised in the forward of {self.label} on inputs: {error._format_array_props(in_data)})")
            raise
        if type(outputs) is not tuple:
            raise TypeError(f"{self.label}: forward output must be a tuple of ndarrays, got {type(outputs).__name__}")
        for y in outputs:
            if type(y) is not _ndarray:
                outputs = self._checked_outputs(outputs)
                break

        if debug:
            _backprop.check_finite(outputs, self.label, "forward")
        if all_hooks:
            for hook in all_hooks:
                hook.forward_postprocess(self, in_data)
                # Private: chainer.static_graph records which variables went in and
                # which arrays came out of each function.
                observe = getattr(hook, "_observe_apply", None)
                if observe is not None:
                    observe(self, input_vars, outputs)

        if not enable_backprop:
            if len(outputs) == 1:
                var = _new(_Variable)
                var._array = outputs[0]
                var._node = var._grad_var = None
                var._requires_grad = requires_grad
                return (var,)
            return tuple([_output_variable(y, requires_grad) for y in outputs])
        # Without an input that requires grad no edges are recorded, unless an active hook
        # asks for the whole graph (onnx_chainer's exporter). all_hooks is None without hooks.
        if not requires_grad and not (all_hooks and any(getattr(h, "_record_all_functions", False) for h in all_hooks)):
            return self._outputs_without_edges(input_vars, outputs)

        # Record the graph: this node keeps its inputs' nodes and weak references to
        # its outputs' nodes (a strong one would form a cycle through creator_node).
        if n_inputs == 1:
            x = input_vars[0]
            node = x._node or x.node
            rank = node._rank
            self.inputs = input_nodes = (node,)
        else:
            rank = 0
            node_list = []
            for x in input_vars:
                node = x._node or x.node
                if node._rank > rank:
                    rank = node._rank
                node_list.append(node)
            self.inputs = input_nodes = tuple(node_list)
        self.rank = rank
        rank += 1
        if len(outputs) == 1:
            y = outputs[0]
            var = _new(_Variable)
            var._array = y
            var._grad_var = None
            var._requires_grad = requires_grad
            var._node = node = _new(_VariableNode)
            node._variable = _weakref(var)
            node.creator_node = self
            node.data = node.name = None
            node._requires_grad = requires_grad
            node._rank = rank
            if y is None:
                node.dtype = node.shape = None
            else:
                node.dtype = y.dtype
                node.shape = y.shape
            self.outputs = (_weakref(node),)
            ret: tuple[variable.Variable, ...] = (var,)
        else:
            ret = self._record_outputs(outputs, requires_grad, rank)

        if self._input_indexes_to_retain is not None:
            for i in self._input_indexes_to_retain:
                input_nodes[i].data = in_data[i]
        if self._output_indexes_to_retain is not None:
            retained = []
            for i in self._output_indexes_to_retain:
                ret[i]._node.data = y = outputs[i]  # type: ignore[union-attr]  # recorded just above
                retained.append(y)
            self._retained_output_data = tuple(retained)
        if debug:
            self.stack = _backprop.capture_stack()
        return ret

    def _set_output_layouts(self, ret: tuple[variable.Variable, ...]) -> tuple[variable.Variable, ...]:
        # Give the outputs the layouts check_layout_forward (or the node's constructor) set.
        out_layouts = self._output_layouts
        if out_layouts is None:
            return ret
        if len(out_layouts) == 1 and len(ret) > 1 and self._layout_elementwise:
            # Every output of an elementwise function (gradients of both operands) shares the layout.
            out_layouts = out_layouts * len(ret)
        if len(out_layouts) != len(ret):
            raise ValueError(f"{self.label}: output_layouts names {len(out_layouts)} layouts for {len(ret)} outputs")
        from chainer import memory_layouts

        recorded = False
        for var, layout in zip(ret, out_layouts):
            if layout is None:
                continue
            if var._array is not None:
                memory_layouts._get_layout_transpose_axes(var._array.ndim, layout, None)
            var._layout = layout
            if var._node is not None:
                variable._attach_layout_node(var, layout)
                recorded = True
        if recorded:
            # The outputs' nodes were replaced by ones that hold their layouts.
            self.outputs = tuple([_weakref(var._node) for var in ret])  # type: ignore[arg-type]
        return ret

    def _record_outputs(
        self, outputs: tuple[Any, ...], requires_grad: bool, rank: int
    ) -> tuple[variable.Variable, ...]:
        # apply()'s graph recording of several outputs.
        ret = []
        out_refs = []
        for y in outputs:
            var = _output_variable(y, requires_grad)
            node = _output_node(var, y, self, rank)
            node._requires_grad = requires_grad
            out_refs.append(_weakref(node))
            ret.append(var)
        self.outputs = tuple(out_refs)
        return tuple(ret)

    def _check_types_once(
        self, passed: dict[Any, Any], key: Any, in_data: tuple[Any, ...], check: Callable[[Any], None]
    ) -> None:
        # Run the check of a class that declares _type_check_reads_inputs_only on a new
        # input signature ``key`` and remember the function that passed. Only the class's
        # own check is remembered: one assigned to this node (a mock, say) may read
        # anything, and runs every time. (Instance attributes are not looked up through
        # self.__dict__, which would make Python build the dict of every node.)
        type_check.run_check(check, in_data, self.label)
        func = getattr(check, "__func__", None)
        if func is None or getattr(check, "__self__", None) is not self or func is not type(self).check_type_forward:
            return
        if len(passed) >= _MAX_SIGNATURES:
            passed.clear()
        passed[key] = func

    def _outputs_without_edges(
        self, input_vars: Sequence[variable.Variable], outputs: tuple[Any, ...]
    ) -> tuple[variable.Variable, ...]:
        # Chainer 7.8.1 recorded the graph whenever backprop was enabled, so code reads
        # ``y.creator`` (e.g. dropout's mask) after applying a function to constants. The
        # outputs refer to this node as their creator, and get their VariableNode (with
        # the rank a full graph would give) only when asked for it. The node keeps no
        # inputs and no outputs: nothing can flow back to constants, and chains of such
        # outputs (inference without no_backprop_mode) keep no arrays alive.
        rank = 0
        for x in input_vars:
            node = x._node
            if node is not None:
                if node._rank > rank:
                    rank = node._rank
            else:
                creator = x._lazy_creator
                if creator is not None and creator.rank >= rank:
                    rank = creator.rank + 1
        self.rank = rank
        if len(outputs) == 1:
            var = _output_variable(outputs[0], False)
            var._lazy_creator = self
            return (var,)
        ret = []
        for y in outputs:
            var = _output_variable(y, False)
            var._lazy_creator = self
            ret.append(var)
        return tuple(ret)

    def _active_hooks(self) -> list[function_hook.FunctionHook]:
        local_hooks = self._local_function_hooks
        return [*_hook_state.function_hooks.values(), *(local_hooks.values() if local_hooks else ())]

    def _checked_outputs(self, outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        """``outputs`` (not all NumPy arrays) as :meth:`apply` returns them: checked by
        :meth:`_normalize_outputs`, except a single output of an array type checked before
        (CuPy's) in this plugin generation."""
        if len(outputs) == 1 and type(outputs[0]) in _checked_output_types.get(backend.plugins._manager.generation, ()):
            return outputs
        return self._normalize_outputs(outputs)

    def _normalize_outputs(self, outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        fixed = []
        for i, y in enumerate(outputs):
            # (None is an output without an array, which Chainer allows.)
            if isinstance(y, numpy.generic):
                y = numpy.asarray(y)
            elif y is not None and not isinstance(y, _ndarray) and backend._entry_for_array_type(type(y)) is None:
                raise TypeError(
                    f"{self.label}: forward output must be a tuple of ndarrays; output {i} is a {type(y).__name__}"
                )
            fixed.append(y)
        if len(fixed) == 1 and (y := fixed[0]) is not None and type(y) is not _ndarray:
            # Owned by a backend (checked above): the next single output of this type
            # skips the check (until plugins change, which changes the owners' generation).
            generation = backend.plugins._manager.generation
            if generation not in _checked_output_types:
                _checked_output_types.clear()
                _checked_output_types[generation] = set()
            _checked_output_types[generation].add(type(y))
        names = _mixed_device_names(fixed) if len(fixed) > 1 else None
        if names is not None:
            raise TypeError(f"{self.label}: forward returned outputs on different devices: {names}")
        return tuple(fixed)

    def _check_devices(self, in_data: tuple[Any, ...]) -> None:
        names = _mixed_device_names(in_data)
        if names is not None:
            # TypeError, as in Chainer 7.8.1 (an array of another backend is an input of the wrong type).
            raise TypeError(f"{self.label}: all inputs must be on the same device; got arrays on {names}")

    def _no_type_check(self, in_types: type_check.TypeInfoTuple) -> None:
        """State the preconditions on the inputs with :func:`~chainer.utils.type_check.expect`."""

    def _get_check_type_forward(self) -> Any:
        return self.__dict__.get("_instance_check_type_forward") or self._no_type_check

    def _set_check_type_forward(self, check: Any) -> None:
        # A check assigned to an instance (code written for Chainer mocks it so) must run
        # although the class states none; recording that here keeps apply() from
        # looking for one on every call.
        self.__dict__["_instance_check_type_forward"] = check
        self._has_type_check = True

    # Subclasses override it with a plain method; on a class that does not, it is this
    # property, whose setter notices an instance-level check.
    check_type_forward = property(
        _get_check_type_forward,
        _set_check_type_forward,
        doc="State the preconditions on the inputs with :func:`~chainer.utils.type_check.expect`.",
    )

    def check_layout_forward(self, inputs: tuple[variable.Variable, ...]) -> None:
        """Check the memory layouts of the input variables, and set :attr:`output_layouts`.

        apply() calls it where an input has a non-standard layout (see
        :mod:`chainer.memory_layouts`); :meth:`forward` then sees the arrays as stored
        and the outputs get :attr:`output_layouts` (standard if not set). This default
        refuses such inputs, with ``RuntimeError``, except for an elementwise function
        (``_layout_elementwise``) whose inputs share one layout, given to its output.
        """
        layouts = tuple([x.layout for x in inputs])
        if layouts.count(None) == len(layouts):
            return
        names = ", ".join(str(layout) for layout in layouts)
        if not self._layout_elementwise:
            raise RuntimeError(_LAYOUT_ERROR.format(self.label, names))
        if layouts.count(layouts[0]) != len(layouts):
            raise RuntimeError(_MIXED_LAYOUT_ERROR.format(self.label, names))
        self._output_layouts = (layouts[0],)

    @property
    def input_layouts(self) -> tuple[Any, ...]:
        """The memory layouts of the inputs (``None``: standard)."""
        if self._input_layouts is not None:
            return self._input_layouts
        return (None,) * (0 if self.inputs is None else len(self.inputs))

    @property
    def output_layouts(self) -> tuple[Any, ...]:
        """The memory layouts of the outputs (``None``: standard); a function that
        understands layouts sets them in :meth:`check_layout_forward` or :meth:`forward`."""
        if self._output_layouts is not None:
            return self._output_layouts
        return (None,) * (0 if self.outputs is None else len(self.outputs))

    @output_layouts.setter
    def output_layouts(self, layouts: Sequence[Any]) -> None:
        from chainer import memory_layouts

        layouts = tuple(layouts)
        for layout in layouts:
            memory_layouts._check_layout(layout, f"{self.label}.output_layouts")
        if layouts.count(None) != len(layouts):
            memory_layouts._enable()
        self._output_layouts = layouts

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        """Compute the output arrays. By default calls :meth:`forward_gpu` if an input
        is a CuPy array and :meth:`forward_cpu` otherwise."""
        for x in inputs:
            if x is not None and not isinstance(x, _ndarray) and type(x).__module__.startswith("cupy"):
                return self.forward_gpu(inputs)
        return self.forward_cpu(inputs)

    def forward_cpu(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        raise NotImplementedError(f"{self.label} implements neither forward() nor forward_cpu()")

    def forward_gpu(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        raise NotImplementedError(f"{self.label} implements neither forward() nor forward_gpu()")

    def forward_chainerx(self, inputs: tuple[Any, ...]) -> Any:
        """ChainerX forward; never used here (ChainerX is not part of this distribution)."""
        return NotImplemented

    def retain_inputs(self, indexes: Sequence[int]) -> None:
        """Keep these inputs for :meth:`backward` (call from forward)."""
        self._input_indexes_to_retain = tuple(indexes)

    def retain_outputs(self, indexes: Sequence[int]) -> None:
        """Keep these outputs for :meth:`backward` (call from forward)."""
        self._output_indexes_to_retain = tuple(indexes)

    def backward(self, target_input_indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        """Gradients with respect to the inputs in ``target_input_indexes``.

        Args:
            target_input_indexes: Sorted indexes of the inputs that need a gradient.
            grad_outputs: Gradients of the outputs as Variables (``None`` means zero).

        Returns:
            A tuple of Variables (or ``None``), one per target index or one per input.
            The default returns ``None`` for every target: a function that does not
            implement backward passes no gradient to its inputs (as in Chainer 7.8.1).
        """
        return (None,) * len(target_input_indexes)

    def backward_accumulate(
        self, target_input_indexes: tuple[int, ...], grad_outputs: tuple[Any, ...], grad_inputs: tuple[Any, ...]
    ) -> tuple[Any, ...]:
        """Gradients of the target inputs plus the gradients accumulated so far (``grad_inputs``)."""
        gxs = self.backward(target_input_indexes, grad_outputs)
        n_inputs = len(self.inputs or ())
        if len(gxs) == n_inputs and len(gxs) != len(target_input_indexes):
            gxs = tuple(gxs[i] for i in target_input_indexes)
        elif len(gxs) != len(target_input_indexes):
            raise ValueError(
                f"{self.label}.backward returned {len(gxs)} gradient(s); expected one per target input "
                f"({len(target_input_indexes)}) or one per input ({n_inputs})"
            )
        result = []
        for gx, g_acc in zip(gxs, grad_inputs):
            if g_acc is None:
                result.append(gx)
            elif gx is None:
                result.append(g_acc)
            else:
                result.append(gx + g_acc)
        return tuple(result)

    def get_retained_inputs(self) -> tuple[variable.Variable | None, ...]:
        """The inputs kept by :meth:`retain_inputs`, as Variables connected to the graph."""
        inputs = self.inputs
        retain = self._input_indexes_to_retain
        if retain is None or inputs is None:
            return ()
        ret: list[variable.Variable | None] = []
        for i in retain:
            node = inputs[i]
            if node.data is None:
                # An input given as None (an absent gradient passed on by a backward) is
                # retained as None, as in 7.8.1, not as a Variable holding None.
                ret.append(None)
                continue
            var = node._variable()
            ret.append(_Variable._from_node(node) if var is None else var)
        return tuple(ret)

    def get_retained_outputs(self) -> tuple[variable.Variable | None, ...]:
        """The outputs kept by :meth:`retain_outputs`, as Variables connected to the graph.

        An output whose variable was dropped is recreated from the retained array and
        re-attached to this node.
        """
        retain = self._output_indexes_to_retain
        outputs = self.outputs
        if retain is None or outputs is None:
            return ()
        ret: list[variable.Variable | None] = []
        for index, data in zip(retain, self._retained_output_data or ()):
            if data is None:
                # An output returned as None by forward stays None.
                ret.append(None)
                continue
            node = outputs[index]()
            var: variable.Variable | None
            if node is None:
                var = _output_variable(data, True)
                node = _output_node(var, data, self, self.rank + 1)
                node.data = data
                if self._output_layouts is not None and (layout := self._output_layouts[index]) is not None:
                    var._layout = layout
                    node = variable._attach_layout_node(var, layout)
                outputs = (*outputs[:index], weakref.ref(node), *outputs[index + 1 :])
                self.outputs = outputs
            else:
                var = node._variable()
                if var is None:
                    # The variable was dropped (the graph keeps nodes, not variables): a new
                    # one around the node, as node.get_variable() makes it.
                    var = _Variable._from_node(node)
            ret.append(var)
        return tuple(ret)

    @property
    def output_data(self) -> tuple[Any, ...]:
        """The retained output arrays (``None`` for outputs not retained)."""
        n = 0 if self.outputs is None else len(self.outputs)
        data: list[Any] = [None] * n
        for index, array in zip(self._output_indexes_to_retain or (), self._retained_output_data or ()):
            data[index] = array
        return tuple(data)

    def unchain(self) -> None:
        """Detach this node from the graph: its outputs become leaves."""
        for ref in self.outputs or ():
            node = ref()
            if node is not None:
                node.unchain()
        self.inputs = None

    def add_hook(self, hook: function_hook.FunctionHook, name: str | None = None) -> None:
        """Register a hook on this function only."""
        if not isinstance(hook, function_hook.FunctionHook):
            raise TypeError(f"{self.label}.add_hook: expected a FunctionHook, got {type(hook).__name__}")
        name = hook.name if name is None else name
        hooks = self.local_function_hooks
        if name in hooks:
            raise KeyError(f"{self.label}.add_hook: a hook named {name!r} is already registered")
        hooks[name] = hook
        hook.added(self)

    def delete_hook(self, name: str) -> None:
        """Unregister the hook named ``name`` from this function."""
        hooks = self.local_function_hooks
        if name not in hooks:
            raise KeyError(f"{self.label}.delete_hook: no hook named {name!r}")
        hooks[name].deleted(self)
        del hooks[name]


_apply_standard = FunctionNode.apply


def _apply_with_layouts(self: FunctionNode, inputs: Sequence[Any]) -> tuple[variable.Variable, ...]:
    """:meth:`FunctionNode.apply` once a non-standard memory layout was used in the process
    (see :func:`_enable_layouts`): the standard apply, plus, where an input has such a
    layout (or the node declares its outputs'), :meth:`FunctionNode.check_layout_forward`,
    the type check on the inputs' semantic (channel-first) views, and the outputs' layouts."""
    if not isinstance(inputs, (tuple, list)):
        inputs = tuple(inputs)
    for x in inputs:
        if isinstance(x, _Variable) and x._layout is not None:
            break
    else:
        if self._output_layouts is None:
            return _apply_standard(self, inputs)
        return self._set_output_layouts(_apply_standard(self, inputs))
    from chainer import memory_layouts

    self._input_layouts = layouts = tuple([x._layout if isinstance(x, _Variable) else None for x in inputs])
    self.check_layout_forward(tuple([variable.as_variable(x) for x in inputs]))
    values = _hot_values()
    if not (values[2] and self._has_type_check):
        return self._set_output_layouts(_apply_standard(self, inputs))
    semantic = []
    for x, layout in zip(inputs, layouts):
        a = x._array if isinstance(x, _Variable) else x
        semantic.append(a if layout is None or a is None else memory_layouts._transpose_array(a, layout, None))
    type_check.run_check(self.check_type_forward, tuple(semantic), self.label)
    # The standard apply would check the stored arrays again, with their stored shapes:
    # it runs with this thread's snapshot of type_check off (so do functions its forward
    # applies, if any; a configuration change inside, or the next call, refreshes it).
    _hot.values = (values[0], values[1], False, values[3])
    try:
        return self._set_output_layouts(_apply_standard(self, inputs))
    finally:
        _hot.values = values


def _enable_layouts() -> None:
    """Handle memory layouts in :meth:`FunctionNode.apply` from now on (called once, by
    ``chainer.memory_layouts._enable``, when the first non-standard layout is used): until
    then ``apply`` is the standard one and spends nothing on layouts."""
    FunctionNode.apply = _apply_with_layouts  # type: ignore[method-assign]


# chainer.function_node.grad is chainer.grad (one function, as in 7.8.1).
grad = _backprop.grad
