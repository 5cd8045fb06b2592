"""Fast replays of a static schedule from CUDA Graphs (CuPy arrays).

On the GPU a fast replay (:mod:`chainer.graph_optimizations._replay`) is a fixed sequence
of kernel launches, and each launch costs tens of microseconds of Python on the host: a
small model's step is bound by the host. Here the sequence is captured once into a CUDA
Graph (CuPy's stream capture) and each later replay costs one graph launch:

* forward: the arguments are copied into buffers of the capture, the forward graph is
  launched, and its outputs are copied out (the caller gets arrays of its own: nothing
  it keeps is overwritten by the next replay);
* backward: the gradients of the outputs are copied into buffers, the backward graph
  (captured at the first backward, per pattern of gradients) is launched, and the
  gradients of the chain's inputs are its buffers. A parameter's gradient is the
  graph's buffer itself (no copy), which the next backward of this graph rewrites; the
  gradients of the chain's variable arguments are copies.

An *instance* is one capture: its buffers, the recorded nodes that read them, and its
graphs. A chain called again before the backward of its previous call gets another
instance (up to :data:`MAX_INSTANCES`, then uncaptured replays), since the backward of
the first call needs its activations. An instance is free again once its backward ran
or its outputs are gone; a backward of an instance that a later call reused raises.

Memory: every array made during a capture comes from a memory pool of the instance's
own (one for the forward, one for the backward), so that no array made outside can take
memory a graph writes to; these pools are kept as long as the schedule is.

What cannot be captured makes the schedule keep its uncaptured fast replay (the reason
is in ``schedule.cuda_graph_reason``, and a ``RuntimeWarning`` says it once):
synchronisation with the host inside a function (``int(array)``, copies to the host),
random numbers drawn by cuRAND (CuPy refuses them in a capture), and any library call
CuPy refuses while capturing. Products of ``F.linear`` go through
:mod:`chainer.backends._cuda_blas`, which cuBLAS allows in a capture; convolutions
through the chainer-cudnn plugin run in it too.

The first replay of a schedule runs uncaptured (kernels compile, plans are made, on
their first use); the capture happens at the second replay. ``CHAINER_CUDA_GRAPH=0`` in
the environment turns this off.
"""

from __future__ import annotations

import os
import sys
import threading
import warnings
import weakref
from typing import Any

from chainer import configuration, function_hook, variable

# Capture at this replay of a schedule (0 is the first): the replays before warm up.
CAPTURE_AT = 1
# Instances per schedule (calls of a chain alive at once, awaiting their backward).
MAX_INSTANCES = 4

_Variable = variable.Variable


def _enabled() -> bool:
    return os.environ.get("CHAINER_CUDA_GRAPH", "1") not in ("0", "false", "False", "no")


class CaptureError(RuntimeError):
    """A capture failed; the schedule keeps its uncaptured replay."""


class _Streams(threading.local):
    def __init__(self) -> None:
        self.by_device: dict[int, Any] = {}


_streams = _Streams()


def _capture_stream(cupy: Any, device_id: int) -> Any:
    stream = _streams.by_device.get(device_id)
    if stream is None:
        with cupy.cuda.Device(device_id):
            stream = _streams.by_device[device_id] = cupy.cuda.Stream(non_blocking=True)
    return stream


def _capture(cupy: Any, device_id: int, pool: Any, run: Any) -> tuple[Any, Any]:
    """``run()`` captured into a CUDA Graph on a stream of its own with ``pool`` as the
    allocator: ``(graph, result of run)``; raises :class:`CaptureError`."""
    stream = _capture_stream(cupy, device_id)
    with cupy.cuda.Device(device_id), stream, cupy.cuda.using_allocator(pool.malloc):
        stream.begin_capture()
        try:
            result = run()
        except BaseException as exc:
            try:
                stream.end_capture()
            except Exception:
                pass
            if isinstance(exc, Exception):
                raise CaptureError(f"{type(exc).__name__}: {exc}") from exc
            raise
        try:
            graph = stream.end_capture()
        except Exception as exc:
            raise CaptureError(f"{type(exc).__name__}: {exc}") from exc
    return graph, result


def _copy_into(dst: Any, src: Any) -> None:
    # A device-to-device copy on the current stream (no kernel for contiguous arrays).
    if src.flags.c_contiguous and src.data.device_id == dst.data.device_id:
        if dst.nbytes:
            dst.data.copy_from_device_async(src.data, dst.nbytes)
    else:
        sys.modules["cupy"].copyto(dst, src)


class _BackwardGraph:
    __slots__ = ("graph", "gy_buffers", "results", "copy_out")

    def __init__(self, graph: Any, gy_buffers: list[Any], results: list[Any], copy_out: list[bool]) -> None:
        self.graph = graph
        self.gy_buffers = gy_buffers
        self.results = results
        self.copy_out = copy_out


class _Instance:
    """One capture of a schedule's forward, its buffers, nodes and backward graphs."""

    def __init__(self, graphs: Graphs, device_id: int) -> None:
        cupy = sys.modules["cupy"]
        self.graphs = graphs
        self.device_id = device_id
        self.forward_pool = cupy.cuda.MemoryPool()
        self.backward_pool = cupy.cuda.MemoryPool()
        self.generation = 0
        self.owner: Any = None  # weak reference to the node of the current call
        self.backward_done = True
        self.backward_graphs: dict[Any, _BackwardGraph] = {}
        self.graph: Any = None
        self.arg_buffers: list[Any] = []
        self.table: list[Any] = []
        self.nodes: list[Any] = []
        self.retained_inputs: list[Any] = []

    def is_free(self) -> bool:
        if self.backward_done:
            return True
        owner = self.owner
        return owner is None or owner() is None

    def capture_forward(self, schedule: Any, arrays: list[Any]) -> None:
        from chainer.graph_optimizations import _replay

        cupy = sys.modules["cupy"]
        with cupy.cuda.Device(self.device_id):
            self.arg_buffers = [cupy.empty_like(a, order="C") for a in arrays]
        externals = schedule._externals
        table = [v._array if isinstance(v, _Variable) else v for v in externals]
        table.extend(self.arg_buffers)

        def run() -> tuple[list[Any], list[Any]]:
            return _replay.run_steps(schedule, table)

        self.graph, (self.nodes, self.retained_inputs) = _capture(cupy, self.device_id, self.forward_pool, run)
        self.table = table

    def launch_forward(self, arrays: list[Any]) -> None:
        for buffer, a in zip(self.arg_buffers, arrays):
            _copy_into(buffer, a)
        self.graph.launch()

    def backward(self, node: Any, targets: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> Any:
        from chainer.graph_optimizations._replay import ScheduleNode

        flags = configuration.hot_flags()
        cupy = sys.modules["cupy"]
        if (
            flags.enable_backprop
            or flags.debug
            or function_hook._state.function_hooks
            or self.graphs.backward_failed is not None
            or any(g is not None and type(g._array) is not cupy.ndarray for g in grad_outputs)
        ):
            return ScheduleNode.backward(node, targets, grad_outputs)
        key = (id(node._plan), tuple([g is not None for g in grad_outputs]), targets)
        entry = self.backward_graphs.get(key)
        if entry is None:
            try:
                entry = self._capture_backward(node, targets, grad_outputs)
            except CaptureError as exc:
                self.graphs.backward_failed = str(exc)
                self.graphs.warn(f"its backward runs without a CUDA Graph: it could not be captured ({exc})")
                return ScheduleNode.backward(node, targets, grad_outputs)
            self.backward_graphs[key] = entry
        else:
            for buffer, g in zip(entry.gy_buffers, grad_outputs):
                if buffer is not None:
                    _copy_into(buffer, g._array)
        self._protect_gradients(node, targets, entry)
        entry.graph.launch()
        results = []
        for array, copy in zip(entry.results, entry.copy_out):
            if array is None:
                results.append(None)
            else:
                results.append(_Variable._init_unchecked(array.copy() if copy else array, requires_grad=False))
        return tuple(results)

    def _capture_backward(self, node: Any, targets: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> _BackwardGraph:
        from chainer.graph_optimizations._replay import ScheduleNode

        cupy = sys.modules["cupy"]
        with cupy.cuda.Device(self.device_id):
            gy_buffers = [None if g is None else cupy.empty_like(g._array, order="C") for g in grad_outputs]
        for buffer, g in zip(gy_buffers, grad_outputs):
            if buffer is not None:
                _copy_into(buffer, g._array)
        gys = tuple([None if b is None else _Variable._init_unchecked(b, requires_grad=False) for b in gy_buffers])

        def run() -> Any:
            return ScheduleNode.backward(node, targets, gys)

        graph, gxs = _capture(cupy, self.device_id, self.backward_pool, run)
        results = [None if gx is None else gx._array for gx in gxs]
        # The gradients of leaves (parameters) are the graph's buffers; others are copied.
        copy_out = [node.inputs[i].creator_node is not None or self._is_argument(node, i) for i in targets]
        return _BackwardGraph(graph, gy_buffers, results, copy_out)

    def _is_argument(self, node: Any, i: int) -> bool:
        return node.schedule._grad_inputs[i] >= len(node.schedule._externals)

    @staticmethod
    def _protect_gradients(node: Any, targets: tuple[int, ...], entry: _BackwardGraph) -> None:
        """A parameter whose gradient is still this graph's buffer (``zerograds`` or
        gradients accumulated over several backward passes, where ``cleargrads`` was
        not called) gets a copy of it first: the launch rewrites the buffer, and the
        traversal then adds the new gradient to the copy."""
        for i, array, copy in zip(targets, entry.results, entry.copy_out):
            if array is None or copy:
                continue
            var = node.inputs[i].get_variable_or_none()
            if var is None:
                continue
            grad = var.grad
            if grad is not None and grad.data.ptr == array.data.ptr:
                var.grad = grad.copy()


class Graphs:
    """The CUDA Graph instances of one schedule."""

    def __init__(self, schedule: Any, device_id: int) -> None:
        self.schedule = weakref.ref(schedule)
        self.device_id = device_id
        self.instances: list[_Instance] = []
        self.external_pointers = self._external_pointers(schedule)
        self.backward_failed: str | None = None

    @staticmethod
    def _external_pointers(schedule: Any) -> tuple[int, ...]:
        pointers = []
        for v in schedule._externals:
            array = v._array if isinstance(v, _Variable) else v
            data = getattr(array, "data", None)
            pointers.append(getattr(data, "ptr", 0))
        return tuple(pointers)

    def warn(self, what: str) -> None:
        schedule = self.schedule()
        owner = schedule.owner if schedule is not None else "a static chain"
        warnings.warn(f"chainer.static_graph: {owner}: {what}", RuntimeWarning, stacklevel=6)

    def note_failure(self, reason: str) -> None:
        """The forward cannot be captured: the schedule replays uncaptured from now on."""
        schedule = self.schedule()
        if schedule is None:
            return
        schedule._cuda_graphs = False
        schedule.cuda_graph_reason = reason
        self.instances = []
        self.warn(f"replays without a CUDA Graph: {reason}")

    def instance_for(self, schedule: Any, arrays: list[Any]) -> _Instance | None:
        if self._external_pointers(schedule) != self.external_pointers:
            # A parameter got a new array: the graphs read the old ones. Capture anew.
            self.instances = []
            self.external_pointers = self._external_pointers(schedule)
        for instance in self.instances:
            if instance.is_free():
                instance.launch_forward(arrays)
                return instance
        if len(self.instances) >= MAX_INSTANCES:
            return None
        instance = _Instance(self, self.device_id)
        try:
            instance.capture_forward(schedule, arrays)
        except CaptureError as exc:
            self.note_failure(f"the forward could not be captured ({exc})")
            return None
        self.instances.append(instance)
        instance.launch_forward(arrays)
        return instance


def _device_of(schedule: Any, args: list[Any]) -> int | None:
    """The device of the call where every array of it (arguments, parameters) is a CuPy
    array of one device, else ``None``."""
    cupy = sys.modules.get("cupy")
    if cupy is None:
        return None
    ndarray = cupy.ndarray
    device_id = None
    for v in (*schedule._externals, *args):
        array = v._array if isinstance(v, _Variable) else v
        if type(array) is not ndarray:
            if hasattr(array, "shape") and hasattr(array, "dtype"):
                return None  # a NumPy (or other) array: no graph
            continue
        d = array.data.device_id
        if device_id is None:
            device_id = d
        elif d != device_id:
            return None
    return device_id


def forward(schedule: Any, args: list[Any], enable_backprop: bool) -> list[Any] | None:
    """The fast replay of ``schedule`` from a CUDA Graph, or ``None`` where it is not
    taken (the caller then replays uncaptured)."""
    graphs = schedule._cuda_graphs
    if graphs is None:
        # First fast replay: decide whether this schedule runs on CuPy at all.
        device_id = _device_of(schedule, args)
        if device_id is None or not _enabled():
            schedule._cuda_graphs = False
            schedule.cuda_graph_reason = (
                "turned off by CHAINER_CUDA_GRAPH" if device_id is not None else "not every array is a CuPy array"
            )
            return None
        if any(step.code is not None for step in schedule.steps):
            schedule._cuda_graphs = False
            schedule.cuda_graph_reason = "a static_code function runs host code in every replay"
            return None
        schedule._cuda_graphs = Graphs(schedule, device_id)
        return None
    if schedule.n_replays < CAPTURE_AT:
        return None
    arrays = [a._array if isinstance(a, _Variable) else a for a in args]
    cupy = sys.modules["cupy"]
    for a in arrays:
        if type(a) is not cupy.ndarray or a.data.device_id != graphs.device_id:
            return None
    instance = graphs.instance_for(schedule, arrays)
    if instance is None:
        return None
    from chainer.graph_optimizations import _replay

    schedule.n_replays += 1
    instance.generation += 1
    table = instance.table
    # The outputs as arrays of the caller's own.
    out_table: list[Any] = [None] * len(table)
    first_output = schedule._first_output
    for index, _ in schedule._outputs:
        if index >= first_output and out_table[index] is None:
            out_table[index] = table[index].copy()
    objects = schedule._externals + args
    instance.owner = None  # set by the node finish makes, if it makes one
    results = _replay.finish(
        schedule,
        objects,
        out_table,
        instance.nodes,
        instance.retained_inputs,
        enable_backprop,
        _node_class(),
        instance,
    )
    instance.backward_done = instance.owner is None
    return results


_NODE_CLASS: Any = None


def _node_class() -> Any:
    global _NODE_CLASS
    if _NODE_CLASS is None:
        from chainer.graph_optimizations._replay import ScheduleNode

        class _GraphedScheduleNode(ScheduleNode):
            """The creator of a replay from a CUDA Graph: its backward launches the
            instance's backward graph (see the module's docstring)."""

            def __init__(self, instance: _Instance, *args: Any) -> None:
                super().__init__(*args)
                self._instance = instance
                self._generation = instance.generation
                instance.owner = weakref.ref(self)

            def backward(self, target_input_indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> Any:
                instance = self._instance
                if instance.generation != self._generation:
                    raise RuntimeError(
                        f"chainer.static_graph: the backward of a call of {self.schedule.owner} ran after later "
                        "calls had reused the memory of its activations (its CUDA Graph): call backward before "
                        f"calling the chain more than {MAX_INSTANCES} times, or set CHAINER_CUDA_GRAPH=0"
                    )
                try:
                    return instance.backward(self, target_input_indexes, grad_outputs)
                finally:
                    instance.backward_done = True

        _NODE_CLASS = _GraphedScheduleNode
    return _NODE_CLASS
