"""The optimizer update of many CuPy parameters in one kernel launch per group.

Each update rule's fused GPU kernel costs a launch, and a launch costs tens of
microseconds of host Python, so an update over N parameters spends N launches. Here the
parameters of one rule kind (SGD, MomentumSGD, Adam, AMSGrad; with or without AdaBound's
clipping), one dtype (float32 or float64), one device and the same step scalars (the
hyperparameters, and Adam's bias-corrected rate, which depends on each rule's ``t``)
form a group, updated by one launch of a raw kernel that reads, from a device table,
per tensor its element count and the addresses of its parameter, gradient and state
arrays, then the step's scalars. The kernel body is the rule's own per-parameter kernel
text (``_GPU_OPERATION`` of sgd.py and momentum_sgd.py, ``_GPU_UPDATE`` of adam.py) and
the scalars are converted to the parameter type on the host as CuPy converts the
per-parameter kernel's scalar arguments, so the results are the same bits.

The work is split in two calls so that a step can be captured into a CUDA Graph:
:meth:`MultiTensorUpdate.stage` does everything on the host (the checks, ``t``, the
scalars, the table; one host-to-device copy of one small buffer per group, ordered on
the current stream) and :meth:`MultiTensorUpdate.launch` only launches the kernels on the
current stream (no allocation, no copy, no synchronisation). A group keeps its device
buffer, its kernel arguments and its grid while its parameters, gradients and states keep
their arrays; a captured launch stays valid as long as they do, with ``stage`` called
before each replay.

Anything not handled here (another rule, float16, a rule with hooks, loss scaling, a
state not made yet or not on the device, non-contiguous arrays, patched methods) is left
to the per-parameter path, which the caller runs for the parameters ``stage`` returns.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Iterable
from typing import Any

import numpy

from chainer import _update_rule
from chainer._parameter import Parameter
from chainer.backends import cuda
from chainer.optimizers import _common, adam, momentum_sgd, sgd

_BLOCK = 256
# Enough blocks of 256 threads to fill any current GPU; larger groups loop (grid stride).
_MAX_GRID = 65535
_DTYPES = {numpy.dtype(numpy.float32): "float", numpy.dtype(numpy.float64): "double"}

# The kernel: tensor k owns the global elements [offsets[k], offsets[k + 1]); a thread
# finds its tensor by binary search over the offsets. The table (int64 slots) holds the
# n + 1 offsets, then NPTR addresses per tensor (parameter, gradient, states), then the
# step's scalars as values of the parameter type.
_KERNEL = """
typedef {ctype} T;
typedef T P;
typedef T M;
typedef T G;
extern "C" __global__ void {name}(const long long* __restrict__ table, const int n, const long long total) {{
    const long long* offsets = table;
    const long long* pointers = table + n + 1;
    const T* scalars = (const T*)(pointers + (long long)n * {nptr});
    {scalars}
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
         i += (long long)gridDim.x * blockDim.x) {{
        int lo = 0, hi = n - 1;
        while (lo < hi) {{
            const int mid = (lo + hi + 1) >> 1;
            if (offsets[mid] <= i) lo = mid; else hi = mid - 1;
        }}
        const long long j = i - offsets[lo];
        const long long* p = pointers + (long long)lo * {nptr};
        const G grad = ((const G*)p[1])[j];
        P& param = ((P*)p[0])[j];
        {states}
        {operation}
    }}
}}
"""


class _Kind:
    """One rule kind: its kernel text and how a rule gives its state arrays and scalars."""

    def __init__(self, name: str, rule_class: type, states: tuple[str, ...], scalars: tuple[str, ...], operation: str):
        self.name = name
        self.rule_class = rule_class
        self.states = states
        self.scalar_names = scalars
        self.operation = operation
        self.nptr = 2 + len(states)

    def source(self, ctype: str, name: str) -> str:
        scalars = " ".join(f"const M {s} = scalars[{i}];" for i, s in enumerate(self.scalar_names))
        if "clip" in self.scalar_names:
            scalars = scalars.replace("const M clip =", "const bool clip = (M)0 !=")
        states = " ".join(f"M& {s} = ((M*)p[{2 + i}])[j];" for i, s in enumerate(self.states))
        return _KERNEL.format(
            ctype=ctype, name=name, nptr=self.nptr, scalars=scalars, states=states, operation=self.operation
        )

    def step_scalars(self, rule: Any, dtype: numpy.dtype[Any]) -> tuple[Any, ...] | None:
        """The scalars of one step of ``rule`` (after ``t`` counted it), as its
        per-parameter kernel gets them; ``None`` where a value is not a real number."""
        hp = rule.hyperparam
        if self.name == "sgd":
            values: tuple[Any, ...] = (_common.scalar(hp.lr),)
        elif self.name == "momentum_sgd":
            values = (_common.scalar(hp.lr), _common.scalar(hp.momentum))
        else:
            eps = _common.scalar(hp.eps)
            lower, upper = rule._bounds() if hp.adabound else (0.0, math.inf)
            values = (*rule._kernel_scalars(eps), lower, upper, 1.0 if hp.adabound else 0.0)
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            return None
        return values


_SGD = _Kind("sgd", sgd.SGDRule, (), ("lr",), sgd._GPU_OPERATION)
_MOMENTUM = _Kind("momentum_sgd", momentum_sgd.MomentumSGDRule, ("v",), ("lr", "momentum"), momentum_sgd._GPU_OPERATION)
_ADAM_SCALARS = (
    "lr",
    "one_minus_beta1",
    "one_minus_beta2",
    "eps",
    "weight_decay_rate",
    "eta",
    "lower",
    "upper",
    "clip",
)
_ADAM = _Kind("adam", adam.AdamRule, ("m", "v"), _ADAM_SCALARS, adam._GPU_UPDATE.format(second_moment="M vv = v;"))
_AMSGRAD = _Kind(
    "amsgrad",
    adam.AdamRule,
    ("m", "v", "vhat"),
    _ADAM_SCALARS,
    adam._GPU_UPDATE.format(second_moment="vhat = vhat < v ? v : vhat; M vv = vhat;"),
)
_RULE_KINDS: dict[type, Any] = {
    sgd.SGDRule: _SGD,
    momentum_sgd.MomentumSGDRule: _MOMENTUM,
    adam.AdamRule: None,  # _ADAM or _AMSGRAD by the amsgrad flag
}
# The methods the per-parameter path would call: a rule (or parameter) whose class or
# instance has another one (a subclass, mock.patch) is left to that path.
_RULE_METHODS = ("update", "_run_rule", "_prepare", "update_core", "update_core_gpu", "_update_param_gpu")
_BASE_METHODS = {cls: tuple(getattr(cls, name) for name in _RULE_METHODS) for cls in _RULE_KINDS}
_BASE_PARAM_UPDATE = Parameter.update
# Kinds and dtypes whose kernel failed to build: they stay on the per-parameter path.
_broken: set[tuple[str, str]] = set()
_kernels: dict[tuple[str, str, int], Any] = {}


def _kind_of(rule: Any) -> _Kind | None:
    cls = type(rule)
    if cls not in _RULE_KINDS:
        return None
    d = rule.__dict__
    if not d.keys().isdisjoint(_RULE_METHODS) or rule._pre_update_hooks or rule._post_update_hooks:
        return None
    kind = _RULE_KINDS[cls]
    if kind is None:
        kind = _AMSGRAD if rule.hyperparam.amsgrad else _ADAM
    return kind


def _classes_unpatched() -> bool:
    return (
        all(tuple(getattr(cls, name) for name in _RULE_METHODS) == base for cls, base in _BASE_METHODS.items())
        and Parameter.update is _BASE_PARAM_UPDATE
    )


def _arrays(param: Any, rule: Any, kind: _Kind, ndarray: type, seen: dict[int, Any], cache: dict[int, Any]) -> Any:
    """``(param, grad, *states)`` arrays of a parameter this module can update and their
    ``(size, *addresses)`` (empty for an empty tensor), else ``None``.

    The parameter's and the states' checks are kept (in ``seen``, by the parameter's id,
    looked up in last step's ``cache``) while they keep their array objects; the gradient,
    a new array at each backward, is checked at each step."""
    if not isinstance(param, Parameter) or "update" in param.__dict__ or param._loss_scale is not None:
        return None
    array = param._array
    state = rule._state
    if type(array) is not ndarray or state is None or rule._unchecked_state or len(state) != len(kind.states):
        return None
    grad = _update_rule.peek_grad(param)
    if type(grad) is not ndarray:
        return None
    states = tuple(state.get(name) for name in kind.states)
    key = id(param)
    known = cache.get(key)
    if known is not None and known[0] is param and known[1] is array and known[3] == tuple(map(id, states)):
        if known[2] is grad:
            seen[key] = known
            return known[4]
        if not _same_layout(grad, array):
            return None
        arrays, addresses = known[4]
        if addresses:
            addresses = (addresses[0], addresses[1], grad.data.ptr, *addresses[3:])
        result = ((array, grad, *states), addresses)
    else:
        dtype = array.dtype
        if dtype not in _DTYPES or not array.flags.c_contiguous:
            return None
        for a in (grad, *states):
            if type(a) is not ndarray or not _same_layout(a, array):
                return None
        if kind.name in ("adam", "amsgrad"):
            eps = _common.scalar(rule.hyperparam.eps)
            if not isinstance(eps, (int, float)) or (eps != 0 and dtype.type(eps) == 0):
                return None  # the per-parameter path raises its error
        arrays = (array, grad, *states)
        addresses = (array.size, *(a.data.ptr for a in arrays)) if array.size else ()
        result = (arrays, addresses)
    seen[key] = (param, array, grad, tuple(map(id, states)), result)
    return result


def _same_layout(a: Any, array: Any) -> bool:
    return (
        a.dtype == array.dtype
        and a.shape == array.shape
        and a.flags.c_contiguous
        and a.data.device_id == array.data.device_id
    )


class _Group:
    """The launch of one kind over one list of tensors: a device table and its kernel.

    The table is rewritten on the host when the tensors' addresses change, and copied to
    the device (with the step's scalars) by :meth:`stage`; the device buffer, the kernel
    arguments and the grid stay the same while the number of tensors does."""

    def __init__(self, kind: _Kind, dtype: numpy.dtype[Any], device_id: int, kernel: Any) -> None:
        self.kind = kind
        self.dtype = dtype
        self.device_id = device_id
        self._kernel = kernel
        self._addresses: tuple[int, ...] | None = None
        self._host: numpy.ndarray[Any, Any] | None = None
        self._device_table: Any = None
        self._args: tuple[Any, ...] = ()
        self._grid = 0
        self._scalar_slot = 0

    def stage(self, entries: list[Any], scalars: numpy.ndarray[Any, Any]) -> None:
        cupy = cuda._cupy()
        # An empty tensor (no addresses) has nothing to update.
        addresses = tuple(x for _, a in entries for x in a)
        nptr = self.kind.nptr
        n = len(addresses) // (nptr + 1)
        if addresses != self._addresses:
            scalar_slots = -(-scalars.nbytes // 8)
            size = n + 1 + n * nptr + scalar_slots
            host = self._host
            if host is None or host.size != size:
                host = numpy.zeros(size, numpy.int64)
                with cupy.cuda.Device(self.device_id):
                    self._device_table = cupy.zeros(size, numpy.int64)
                self._host = host
            sizes = numpy.array(addresses[:: nptr + 1], numpy.int64)
            host[0] = 0
            numpy.cumsum(sizes, out=host[1 : n + 1])
            host[n + 1 : n + 1 + n * nptr] = numpy.array(
                [x for i, x in enumerate(addresses) if i % (nptr + 1)], numpy.int64
            )
            total = int(host[n])
            self._scalar_slot = n + 1 + n * nptr
            self._grid = min(-(-total // _BLOCK), _MAX_GRID)
            self._args = (self._device_table, numpy.int32(n), numpy.int64(total))
            self._addresses = addresses
        host = self._host
        assert host is not None
        host[self._scalar_slot :].view(self.dtype)[: scalars.size] = scalars
        if cupy.cuda.runtime.getDevice() == self.device_id:
            self._device_table.set(host, stream=cupy.cuda.get_current_stream())
        else:
            with cupy.cuda.Device(self.device_id):
                self._device_table.set(host, stream=cupy.cuda.get_current_stream())

    def launch(self) -> None:
        if not self._grid:
            return
        cupy = cuda._cupy()
        if cupy.cuda.runtime.getDevice() == self.device_id:
            self._kernel((self._grid,), (_BLOCK,), self._args)
        else:
            with cupy.cuda.Device(self.device_id):
                self._kernel((self._grid,), (_BLOCK,), self._args)


def _kernel(kind: _Kind, dtype: numpy.dtype[Any], device_id: int) -> Any:
    """The compiled kernel of ``kind`` for ``dtype`` on the device, or ``None`` (then and
    from then on) when it cannot be built."""
    ctype = _DTYPES[dtype]
    key = (kind.name, ctype, device_id)
    kernel = _kernels.get(key)
    if kernel is not None or (kind.name, ctype) in _broken:
        return kernel
    name = f"chainer_multi_tensor_{kind.name}_{ctype}"
    cupy = cuda._cupy()
    try:
        with cupy.cuda.Device(device_id):
            kernel = cuda.raw(kind.source(ctype, name), name)
            kernel.compile()
    except Exception:  # any failure to build leaves the per-parameter path in use
        _broken.add((kind.name, ctype))
        return None
    _kernels[key] = kernel
    return kernel


def _group_key(kind: _Kind, rule: Any, kernel_key: tuple[str, Any, int]) -> Any:
    """``(*kernel_key, the step scalars' bytes)``, or ``False`` when the scalars cannot be
    made (the per-parameter path then raises what it raises, with ``t`` counted once)."""
    dtype = kernel_key[1]
    try:
        scalars = kind.step_scalars(rule, dtype)
    except Exception:
        return False
    if scalars is None:
        return False
    # NumPy rounds a Python number to float32 to nearest, as CuPy converts a scalar
    # argument of the per-parameter kernel; a huge one is inf in both.
    with numpy.errstate(over="ignore"):
        return (*kernel_key, numpy.array(scalars, dtype).tobytes())


def _aliased(pending: dict[Any, Any], rest: list[Any], ndarray: type) -> bool:
    """Whether a parameter array of the groups is also another parameter's array."""
    seen: set[int] = set()
    for _, _, entries in pending.values():
        for _, addresses in entries:
            if addresses:
                if addresses[1] in seen:
                    return True
                seen.add(addresses[1])
    for param in rest:
        array = getattr(param, "array", None)
        if type(array) is ndarray and array.size and array.data.ptr in seen:
            return True
    return False


class MultiTensorUpdate:
    """The multi-tensor update of one optimizer's parameters (see the module docstring).

    Groups are kept between steps, keyed by kind, dtype, device and their order among the
    groups of that key in the step (usually one), so their device buffers and kernel
    arguments are reused.
    """

    def __init__(self) -> None:
        self._groups: dict[tuple[Any, ...], _Group] = {}
        self._staged: list[_Group] = []
        # The parameters checked at the last step (see _arrays).
        self._checked: dict[int, Any] = {}

    def stage(self, params: Iterable[Any]) -> list[Any]:
        """Count (``rule.t``) and stage the update of the parameters this module handles;
        return the others, in order, for the per-parameter path (``param.update()``)."""
        self._staged = []
        params = list(params)
        if not cuda.available:
            return params
        ndarray = cuda._cupy().ndarray
        unpatched = _classes_unpatched()
        pending: dict[tuple[Any, ...], tuple[_Kind, Any, list[tuple[Any, ...]]]] = {}
        kernels: dict[tuple[str, Any, int], Any] = {}
        counted: list[Any] = []
        rest: list[Any] = []
        memos: dict[Any, Any] = {}
        cache = self._checked
        seen: dict[int, Any] = {}
        self._checked = seen
        for param in params:
            rule = getattr(param, "update_rule", None)
            kind = _kind_of(rule) if unpatched and rule is not None and rule.enabled else None
            entry = None if kind is None else _arrays(param, rule, kind, ndarray, seen, cache)
            if entry is None:
                rest.append(param)
                continue
            array = entry[0][0]
            dtype = array.dtype
            device_id = array.data.device_id
            kernel_key = (kind.name, dtype, device_id)
            kernel = kernels.get(kernel_key, False)
            if kernel is False:
                kernel = kernels[kernel_key] = _kernel(kind, dtype, device_id)
            if kernel is None:
                rest.append(param)
                continue
            rule.t += 1
            hp = rule.hyperparam
            # A rule that overrides no hyperparameter has the scalars of every such rule of
            # its optimizer at the same t: computed once a step (the hyperparameter
            # lookups through the parent set cost more than the rest of the staging).
            memo_key = (kernel_key, hp._parent, rule.t, getattr(rule, "initial_alpha", None))
            memo_key = memo_key if len(hp.__dict__) == 1 else None
            key = memos.get(memo_key) if memo_key is not None else None
            if key is None:
                key = _group_key(kind, rule, kernel_key)
                if memo_key is not None:
                    memos[memo_key] = key
            if key is False:
                rule.t -= 1
                rest.append(param)
                continue
            counted.append(rule)
            group = pending.get(key)
            if group is None:
                group = pending[key] = (kind, numpy.frombuffer(key[-1], dtype), [])
            group[2].append(entry)
        if pending and _aliased(pending, rest, ndarray):
            # Updates of one array through two parameters must run one after the other.
            for rule in counted:
                rule.t -= 1
            return params
        ordinal: dict[tuple[Any, ...], int] = {}
        for (name, dtype, device_id, _), (kind, values, entries) in pending.items():
            base = (name, dtype, device_id)
            index = ordinal[base] = ordinal.get(base, -1) + 1
            group = self._groups.get((*base, index))
            if group is None:
                group = self._groups[(*base, index)] = _Group(kind, dtype, device_id, kernels[base])
            group.stage(entries, values)
            self._staged.append(group)
        return rest

    def launch(self) -> None:
        """Launch the kernels of the groups staged last, on the current stream."""
        for group in self._staged:
            group.launch()


# Off: every parameter takes the per-parameter path (tests compare the two paths).
_disabled = False
_updates: weakref.WeakKeyDictionary[Any, MultiTensorUpdate] = weakref.WeakKeyDictionary()


def for_optimizer(opt: Any) -> MultiTensorUpdate:
    """The :class:`MultiTensorUpdate` of ``opt`` (kept outside the optimizer, so that
    copying, pickling or serializing it does not see device buffers)."""
    update = _updates.get(opt)
    if update is None:
        update = _updates[opt] = MultiTensorUpdate()
    return update


def update(opt: Any, params: Iterable[Any]) -> list[Any]:
    """Update, in one launch per group, the parameters this module handles; return the
    others for the per-parameter path."""
    if _disabled:
        return list(params)
    mtu = for_optimizer(opt)
    rest = mtu.stage(params)
    mtu.launch()
    return rest
