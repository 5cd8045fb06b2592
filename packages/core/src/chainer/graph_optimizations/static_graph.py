"""The ``static_graph`` decorator: record a chain's forward once, replay it afterwards."""

from __future__ import annotations

import functools
import sys
import threading
import warnings
import weakref
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy

from chainer import configuration, link, link_hook, variable
from chainer.graph_optimizations import _schedule
from chainer.graph_optimizations._schedule import ArrayInfo, StaticScheduleFunction

_OPTIONS = ("force_test_define_by_run", "minimize_cache_size", "verbosity_level", "enable_double_backprop")
# Marks a call signature whose define-by-run code cannot be replayed.
_DEFINE_BY_RUN = "define-by-run"


class ScheduleInfo(NamedTuple):
    """The call signature a schedule is recorded for (the keys of
    :attr:`ScheduleManager.schedules`): the training mode, whether backprop is enabled,
    and the structure, shapes, dtypes and devices of the arguments."""

    train: bool
    enable_backprop: bool
    signature: Any


class ScheduleManager:
    """The static schedules of one static chain (its ``schedule_manager`` attribute).

    A schedule is recorded per call signature: the training mode, whether backprop is
    enabled, and the structure, shapes, dtypes and devices of the arguments. Each replay
    builds its own nodes, variables and output arrays, so a static chain may be called
    any number of times per iteration without notifying it.

    Attributes:
        schedules: The recorded :class:`StaticScheduleFunction` s by
            :class:`ScheduleInfo` (a signature whose code cannot be replayed maps to
            ``'define-by-run'``).
    """

    def __init__(self, owner: Any = None) -> None:
        self._owner = None if owner is None else weakref.ref(owner)
        self.schedules: dict[Any, Any] = {}

    def owned_by(self, chain: Any) -> bool:
        return self._owner is not None and self._owner() is chain

    def end_forward(self) -> None:
        """Mark the end of a forward pass.

        Chainer 7 used this to recycle preallocated schedules between iterations. Here
        every replay allocates its own state, so there is nothing to release; the method
        is kept so that code written for Chainer 7 runs unchanged.
        """

    def clear(self) -> None:
        """Drop every schedule: the next call records again."""
        self.schedules.clear()

    def describe(self) -> str:
        """All schedules as text (see :meth:`StaticScheduleFunction.describe`)."""
        parts = []
        for key, schedule in self.schedules.items():
            if schedule == _DEFINE_BY_RUN:
                parts.append(f"define-by-run for {key!r}")
            else:
                parts.append(schedule.describe())
        return "\n".join(parts) if parts else "no schedule recorded"

    def __repr__(self) -> str:
        return f"<ScheduleManager: {len(self.schedules)} schedule(s)>"

    # Copies and pickles of a chain start without schedules: theirs bind the parameters
    # of the chain they were recorded on.
    def __copy__(self) -> ScheduleManager:
        return ScheduleManager()

    def __deepcopy__(self, memo: Any) -> ScheduleManager:
        return ScheduleManager()

    def __reduce__(self) -> Any:
        return (ScheduleManager, ())


def _signature(obj: Any, where: str) -> Any:
    """Hashable description of the call arguments: containers, array metadata, values."""
    if isinstance(obj, variable.Variable):
        array = obj._array
        return ("V", type(array), array.shape, array.dtype, obj._requires_grad)
    if _schedule._is_array(obj):
        return ("A", type(obj), obj.shape, obj.dtype)
    if isinstance(obj, (list, tuple)):
        return (type(obj), tuple(_signature(o, where) for o in obj))
    if isinstance(obj, dict):
        return (dict, tuple((k, _signature(v, where)) for k, v in obj.items()))
    try:
        hash(obj)
    except TypeError:
        raise TypeError(
            f"{where}: the arguments of a static chain must be variables, arrays, lists, tuples or dicts of them, "
            f"or hashable values; got a {type(obj).__name__}"
        ) from None
    return ("C", type(obj), obj)


_ndarray = numpy.ndarray
_Variable = variable.Variable


class _Flags(threading.local):
    """Per-thread snapshot of the configuration keys read on every call."""

    version = -1
    use_static_graph = True
    train = True
    enable_backprop = True


_flags_local = _Flags()


def _flags() -> _Flags:
    flags = _flags_local
    version = configuration._version
    if flags.version != version:
        config = configuration.config
        flags.use_static_graph = bool(config.use_static_graph)
        flags.train = bool(config.train)
        flags.enable_backprop = bool(config.enable_backprop)
        flags.version = version
    return flags


def _manager_of(chain: Any) -> ScheduleManager:
    manager = chain.__dict__.get("schedule_manager")
    if not isinstance(manager, ScheduleManager) or not manager.owned_by(chain):
        manager = ScheduleManager(chain)
        object.__setattr__(chain, "schedule_manager", manager)
    return manager


class _StaticForward:
    """The wrapped forward method (one per decorated function)."""

    def __init__(self, func: Callable[..., Any], options: dict[str, Any]) -> None:
        self.func = func
        self.force_test_define_by_run = bool(options.get("force_test_define_by_run", False))
        self.minimize_cache_size = bool(options.get("minimize_cache_size", True))
        self.verbosity_level = int(options.get("verbosity_level", 0))
        self.enable_double_backprop = bool(options.get("enable_double_backprop", False))
        self.where = f"chainer.static_graph({getattr(func, '__qualname__', func)!r})"
        self._warned: set[str] = set()

    def __call__(self, chain: Any, *args: Any, **kwargs: Any) -> Any:
        flags = _flags()
        if not flags.use_static_graph or (self.force_test_define_by_run and not flags.train):
            return self.func(chain, *args, **kwargs)
        if _schedule.current_recorder() is not None:
            raise RuntimeError(
                f"{self.where}: a static chain was called while another one records its schedule; nested "
                "static_graph is not allowed: decorate only the outermost chain"
            )
        if link_hook._active_global_hooks[0]:
            # Link hooks must see every child link called: run the define-by-run code.
            return self.func(chain, *args, **kwargs)
        manager = chain.__dict__.get("schedule_manager")
        if manager is None or manager._owner is None or manager._owner() is not chain:
            manager = _manager_of(chain)
        # The usual call, arrays or variables as positional arguments, gets a flat key.
        leaves: Any = args
        for a in args:
            cls = type(a)
            if cls is not _ndarray and not isinstance(a, _Variable):
                leaves = None
                break
        if leaves is None or kwargs:
            signature: Any = _signature((args, kwargs), self.where)
            leaves = []
            _schedule._flatten((args, kwargs), leaves, arrays_only=True)
        else:
            signature = tuple(
                [
                    (type(a), a.shape, a.dtype, None)
                    if type(a) is _ndarray
                    else (type(a._array), a._array.shape, a._array.dtype, a._requires_grad)
                    for a in args
                ]
            )
        # A plain tuple looks up the ScheduleInfo keys (equal hashes and equality).
        key = (flags.train, flags.enable_backprop, signature)
        schedule = manager.schedules.get(key)
        if schedule is not None:
            if schedule == _DEFINE_BY_RUN:
                return self.func(chain, *args, **kwargs)
            if schedule.is_valid():
                if self.verbosity_level >= 2:
                    print(f"{self.where}: replaying {schedule!r}", file=sys.stdout)
                chain.__dict__["static_schedule"] = schedule
                return schedule.forward(list(leaves))
        return self._record(chain, manager, key, args, kwargs)

    def _record(self, chain: Any, manager: ScheduleManager, key: Any, args: Any, kwargs: Any) -> Any:
        key = ScheduleInfo(*key)
        leaves: list[Any] = []
        _schedule._flatten((args, kwargs), leaves, arrays_only=True)
        # Lazily initialised parameters draw their values during this call; record the
        # next call instead, whose only random numbers are those of the functions.
        uninitialized = [p for p in chain.params() if p.array is None] if isinstance(chain, link.Link) else []
        reason = None
        if isinstance(chain, link.Link):
            hooked = [lk.name or type(lk).__name__ for lk in chain.links() if lk._local_link_hooks]
            if hooked:
                reason = f"link hooks are registered on {', '.join(hooked)}"
        recorder = _schedule.Recorder(leaves)
        with recorder:
            recorder.mark_rng()
            outputs = self.func(chain, *args, **kwargs)
            recorder.check_rng("after the last function")
        if any(p.array is not None for p in uninitialized):
            return outputs
        reason = reason or recorder.unsupported
        if reason is not None:
            manager.schedules[key] = _DEFINE_BY_RUN
            if reason not in self._warned:
                self._warned.add(reason)
                warnings.warn(f"{self.where} runs define-by-run: {reason}", RuntimeWarning, stacklevel=3)
            return outputs
        schedule = recorder.build(outputs, f"{type(chain).__name__}.{getattr(self.func, '__name__', 'forward')}")
        schedule.define_by_run_graph = self.enable_double_backprop
        if self.minimize_cache_size:
            manager.schedules.clear()
        manager.schedules[key] = schedule
        # The schedule in use, under Chainer's name for it.
        chain.__dict__["static_schedule"] = schedule
        if self.verbosity_level >= 1:
            print(f"{self.where}: recorded a schedule of {len(schedule.steps)} steps", file=sys.stdout)
            if self.verbosity_level >= 2:
                print(schedule.describe(), file=sys.stdout)
        return outputs


def static_graph(*args: Any, **kwargs: Any) -> Any:
    """Decorator to mark a Chain's ``__call__()`` as a static sub-graph.

    ``@static_graph`` or ``@static_graph(force_test_define_by_run=False,
    minimize_cache_size=True, verbosity_level=0, enable_double_backprop=False)`` on the
    forward method (``forward`` or ``__call__``) of a :class:`~chainer.Chain` whose
    define-by-run code applies the same functions every time it is called.

    The first call runs the define-by-run code as usual (it can be debugged normally)
    and records every function applied; later calls with the same training mode,
    backprop mode and argument shapes, dtypes and devices replay that schedule. A replay
    skips all the Python code between the functions (wrappers, argument checks, link
    calls, type checks) and runs the same function nodes' ``forward`` on arrays; the
    outputs get one creator node (labelled ``StaticScheduleFunction``), whose backward
    calls the recorded nodes' ``backward`` in the order define-by-run's traversal would
    and sums their gradients as it would. Outputs and gradients are bit for bit those of
    define-by-run (a variable that also receives gradients from outside the chain, or
    from another call of it, gets the chain's share as one term: where it receives
    three or more, the rounding of their sum may differ, as it may in a graph that
    mixes the recording call with replays).

    Replays build define-by-run's graph instead, and backprop walks it generically,
    while a function hook is active or debug mode is on, when a recorded function has
    hooks of its own, when the chain returns a variable that it also applies functions
    to, when a ``static_code`` function takes or returns variables, when one variable is
    given twice among the arguments and parameters, and always with
    ``enable_double_backprop=True``. Hooks registered, debug mode or double backprop
    turned on only for the backward are honoured by the recorded backward itself: hooks
    see each recorded function (and the ``StaticScheduleFunction`` node), debug mode
    checks each gradient, and the gradients are differentiable.

    Rules for the decorated code:

    * The arguments are variables or arrays, possibly in (nested) lists, tuples or
      dicts; other arguments must be hashable, and a change of their value records a
      new schedule. Return variables (or arrays), possibly in such containers.
    * Every variable used comes from the arguments, from the chain's parameters or is
      computed by the code. Values kept in attributes between calls (the state of an
      LSTM link, for example) are bound as they were when the schedule was recorded.
    * Code other than chainer functions (printing, reporting, updating counters, NumPy
      arithmetic on ``.array``) runs only when a schedule is recorded; put it in a
      function decorated with :func:`~chainer.static_code` to run it on every call.
    * Random numbers are drawn anew in each replay when they are drawn inside a
      function's forward (as :func:`~chainer.functions.dropout` does). Code that draws
      them outside (sampling from a distribution, for example) cannot be replayed: such
      a chain warns once and keeps running define-by-run.
    * Nested static chains are not allowed: decorate the outermost one only.

    An optimizer set up on a link that contains a static chain records its update as
    well: after a generic update, the next ones run the recorded list of parameter
    updates without walking the links, with the same results; anything that could
    change the list (a parameter or rule replaced, loss scaling, an optimizer hook not
    from :mod:`chainer.optimizer_hooks`) makes that update generic again.

    On the GPU (CuPy arrays), the replays after the first run from CUDA Graphs: the
    forward and the backward of the chain are captured once (CuPy's stream capture) and
    each later call costs a graph launch instead of a launch per kernel. The outputs
    are the caller's own arrays; the gradients of the chain's parameters are buffers of
    the graph, rewritten by the next backward of that call's capture (``cleargrads``
    and ``zerograds`` both work as usual). A chain that synchronises with the host or
    draws random numbers (``F.dropout``) in its forward cannot be captured: it warns
    once and replays without graphs. ``CHAINER_CUDA_GRAPH=0`` turns the graphs off.

    A static chain may be called several times per iteration; each call builds its own
    graph. ``chain.schedule_manager`` (a :class:`ScheduleManager`) holds the schedules
    for inspection. ``chainer.config.use_static_graph = False`` turns the feature off:
    the decorated method is then called as is.

    Args:
        force_test_define_by_run (bool): Run define-by-run when ``chainer.config.train``
            is ``False``.
        minimize_cache_size (bool): Keep only the latest schedule (a change of training
            mode or batch size records a new one); otherwise keep one per signature.
        verbosity_level (int): ``0`` warnings only, ``1`` print when a schedule is
            recorded, ``2`` also print the schedule and every replay.
        enable_double_backprop (bool): Replays build define-by-run's graph, so that
            double backprop gives define-by-run's results bit for bit. Without it double
            backprop works too, its second-order terms possibly summed in another order.

    Example:
        >>> class MLP(chainer.Chain):
        ...     def __init__(self):
        ...         super().__init__()
        ...         with self.init_scope():
        ...             self.W = chainer.Parameter(np.ones((2, 3), 'f'))
        ...     @chainer.static_graph
        ...     def forward(self, x):
        ...         return F.relu(F.linear(x, self.W))
        >>> model = MLP()
        >>> x = np.ones((1, 3), 'f')
        >>> model(x).array, model(x).array  # recorded, then replayed
        (array([[3., 3.]], dtype=float32), array([[3., 3.]], dtype=float32))
    """
    if args and kwargs:
        raise TypeError("chainer.static_graph: use @static_graph or @static_graph(option=value, ...)")
    if args:
        if len(args) != 1 or not callable(args[0]):
            raise TypeError(f"chainer.static_graph: expected the method to decorate, got {args!r}")
        return _decorate(args[0], {})
    unknown = set(kwargs) - set(_OPTIONS)
    if unknown:
        raise TypeError(
            f"chainer.static_graph: unexpected option(s) {sorted(unknown)}; the options are {list(_OPTIONS)}"
        )
    level = kwargs.get("verbosity_level", 0)
    if isinstance(level, bool) or not isinstance(level, int) or level < 0:
        raise ValueError(f"chainer.static_graph: verbosity_level must be 0, 1 or 2, got {level!r}")
    return lambda func: _decorate(func, kwargs)


def _decorate(func: Callable[..., Any], options: dict[str, Any]) -> Callable[..., Any]:
    static = _StaticForward(func, options)

    @functools.wraps(func)
    def forward(self: Any, *args: Any, **kwargs: Any) -> Any:
        return static(self, *args, **kwargs)

    forward._static_forward = static  # type: ignore[attr-defined]
    return forward


__all__ = ["ArrayInfo", "ScheduleInfo", "ScheduleManager", "StaticScheduleFunction", "static_graph"]
