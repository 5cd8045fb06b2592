"""Hyperparameter sets and the per-parameter :class:`UpdateRule` (public in
:mod:`chainer.optimizer`)."""

from __future__ import annotations

import collections.abc
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy

from chainer import backend, variable
from chainer.backends import cuda

_TIMINGS = ("auto", "pre", "post")


class Hyperparameter:
    """A set of hyperparameters whose missing entries are looked up in a parent set.

    ``Hyperparameter(parent=None)``

    An optimizer owns one set (``optimizer.hyperparam``); each parameter's update rule owns
    a child of it, so changing ``optimizer.lr`` changes the rate of every rule that did
    not override it, and ``param.update_rule.hyperparam.lr = 0.1`` changes one parameter
    only.

    Args:
        parent: The set to fall back on for missing attributes, or ``None``.

    Example:
        >>> from chainer.optimizer import Hyperparameter
        >>> base = Hyperparameter()
        >>> base.lr = 0.1
        >>> child = Hyperparameter(base)
        >>> child.lr
        0.1
        >>> child.lr = 0.5
        >>> base.lr, child.lr
        (0.1, 0.5)
    """

    def __init__(self, parent: Hyperparameter | None = None) -> None:
        if parent is not None and not isinstance(parent, Hyperparameter):
            raise TypeError(f"Hyperparameter: parent must be a Hyperparameter or None, got {type(parent).__name__}")
        self._parent = parent

    def __getattr__(self, name: str) -> Any:
        # Only called for attributes missing from this set. '_parent' itself may be
        # missing while unpickling, before __dict__ is restored.
        if name.startswith("__") or "_parent" not in self.__dict__:
            raise AttributeError(name)
        parent = self.__dict__["_parent"]
        if parent is None:
            raise AttributeError(f"hyperparameter {name!r} is not defined")
        return getattr(parent, name)

    def __repr__(self) -> str:
        entries = ", ".join(f"{k}={v!r}" for k, v in sorted(self.get_dict().items()))
        return f"Hyperparameter({entries})"

    @property
    def parent(self) -> Hyperparameter | None:
        """The parent set, or ``None``."""
        return self._parent

    def get_dict(self) -> dict[str, Any]:
        """All entries of this set and its ancestors (this set's values win)."""
        d = {} if self._parent is None else self._parent.get_dict()
        d.update((k, v) for k, v in self.__dict__.items() if k != "_parent")
        return d


class UpdateRule:
    """How one parameter is updated from its gradient; the base of every update rule.

    ``UpdateRule(parent_hyperparam=None)``

    An optimizer gives each parameter its own rule (``param.update_rule``), so rules can
    differ per parameter (a per-parameter learning rate, a frozen parameter, a hook of its
    own). A subclass implements :meth:`update_core_cpu` and :meth:`update_core_gpu` (or
    :meth:`update_core`), and :meth:`init_state` when it keeps state (momentum, moments).

    Args:
        parent_hyperparam: The optimizer's hyperparameter set; the rule's own
            :attr:`hyperparam` falls back on it.

    Attributes:
        enabled (bool): Whether :meth:`update` changes the parameter (``False`` freezes it).
        hyperparam (Hyperparameter): The rule's hyperparameters.
        t (int): Number of updates made.
    """

    # A state loaded without its parameter's shape at hand (a rule loaded on its own, or
    # one of an uninitialized parameter) is checked against the parameter at the next
    # update. A class attribute: rules pickled before it existed unpickle without it.
    _unchecked_state = False

    def __init__(self, parent_hyperparam: Hyperparameter | None = None) -> None:
        self._pre_update_hooks: OrderedDict[str, Callable[..., Any]] = OrderedDict()
        self._post_update_hooks: OrderedDict[str, Callable[..., Any]] = OrderedDict()
        self._state: dict[str, Any] | None = None
        self.enabled = True
        self.hyperparam = Hyperparameter(parent_hyperparam)
        self.t = 0
        self._use_fp32_update = False
        self._fp32_param: variable.Variable | None = None

    @property
    def state(self) -> dict[str, Any] | None:
        """The state arrays (``None`` until the first update or a load)."""
        return self._state

    # -- hooks ---------------------------------------------------------------------------

    def add_hook(self, hook: Callable[..., Any], name: str | None = None, timing: str = "auto") -> None:
        """Register a function called as ``hook(rule, param)`` around each update.

        Args:
            hook: A callable; its ``timing`` attribute is used when ``timing`` is ``'auto'``.
            name: Name of the hook (defaults to ``hook.name``, then ``hook.__name__``).
            timing: ``'pre'`` (before the update), ``'post'`` (after) or ``'auto'``.
        """
        _add_hook(type(self).__name__, self._pre_update_hooks, self._post_update_hooks, hook, name, timing)

    def remove_hook(self, name: str) -> None:
        """Unregister the hook called ``name``."""
        _remove_hook(type(self).__name__, self._pre_update_hooks, self._post_update_hooks, name)

    # -- updates -------------------------------------------------------------------------

    def update(self, param: variable.Variable) -> None:
        """Update ``param`` from its gradient.

        Nothing happens when the rule is disabled. Otherwise :attr:`t` counts the update
        and the hooks and :meth:`update_core` run, as in Chainer 7 even for a parameter
        without an array or a gradient (the update formulas skip those). A gradient
        computed with a loss scale (``param._loss_scale``, set by
        ``backward(loss_scale=...)``) is divided by the scale first. With
        :meth:`use_fp32_update` on, a float16 parameter is updated through a float32
        master copy (gradient cast, then unscaled, in float32).
        """
        if not self.enabled:
            return
        self.t += 1
        if self._use_fp32_update and _dtype_or_none(param) == numpy.float16:
            self._update_through_fp32(param)
            return
        grad = peek_grad(param)
        if param.array is not None and grad is not None:
            scale = param._loss_scale
            if scale is not None:
                param.grad = _unscaled(grad, scale)
                param._loss_scale = None
            elif self._pre_update_hooks and not is_own_array(grad):
                param.grad = grad.copy()  # hooks write into the gradient
        if param.array is not None:
            self._prepare(param)
        self._run_rule(param)

    def _run_rule(self, param: variable.Variable) -> None:
        for hook in tuple(self._pre_update_hooks.values()):
            hook(self, param)
        self.update_core(param)
        for hook in tuple(self._post_update_hooks.values()):
            hook(self, param)

    def _update_through_fp32(self, param: variable.Variable) -> None:
        if param.array is None:
            # The rule sees a float32 stand-in, uninitialized like the parameter.
            from chainer import _parameter, initializers

            stand_in = _parameter.Parameter(initializers.NaN(numpy.float32), name=param.name)
            stand_in.cleargrad()
            self._run_rule(stand_in)
            return
        master = self._fp32_param
        if master is None or master.shape != param.shape:
            master = self._fp32_param = variable.Variable(param.array.astype(numpy.float32), name=param.name)
        elif master.device != param.device:
            master.to_device(param.device)
        # Unscale in float32: in float16 small gradients would underflow. The float16
        # gradient stays as it is (still scaled, with its _loss_scale).
        grad = peek_grad(param)
        grad = None if grad is None else grad.astype(numpy.float32)
        scale = param._loss_scale
        if scale is not None and grad is not None:
            grad /= numpy.float32(scale)
        master.grad = grad
        self._prepare(master)
        self._run_rule(master)
        param.array[...] = master.array
        master.grad = None

    def _prepare(self, param: variable.Variable) -> None:
        device = param.device
        if self._state is None:
            self._state = {}
            if device.xp is numpy:
                self.init_state(param)
            else:
                with device.create_context():
                    self.init_state(param)
        state = self._state
        if self._unchecked_state:
            self._check_state_shapes(param, state, None)
            self._unchecked_state = False
        for key, value in state.items():
            # Arrays of a loaded state live on the CPU until the first update.
            if (
                hasattr(value, "shape")
                and not isinstance(value, numpy.generic)
                and not device.is_array_supported(value)
            ):
                state[key] = device.send(value)

    def init_state(self, param: variable.Variable) -> None:
        """Create the state arrays for ``param`` in :attr:`state` (nothing by default)."""

    def update_core(self, param: variable.Variable) -> None:
        """Apply the update formula, dispatching on the parameter's device."""
        device = param.device
        xp = device.xp
        if xp is numpy:
            self.update_core_cpu(param)
            return
        with device.create_context():
            if isinstance(device, cuda.GpuDevice):
                self.update_core_gpu(param)
            else:
                # Other backends (plugins) get the array-module generic CPU code.
                self.update_core_cpu(param)

    def update_core_cpu(self, param: variable.Variable) -> None:
        """Apply the update formula to a parameter on the CPU."""
        raise NotImplementedError(f"{type(self).__name__} must implement update_core_cpu(param) or update_core(param)")

    def update_core_gpu(self, param: variable.Variable) -> None:
        """Apply the update formula to a parameter on a GPU."""
        raise NotImplementedError(f"{type(self).__name__} must implement update_core_gpu(param) or update_core(param)")

    def update_core_chainerx(self, param: variable.Variable) -> None:
        """ChainerX is not part of this distribution: always an error."""
        raise NotImplementedError(
            f"{type(self).__name__}.update_core_chainerx: ChainerX is not supported by this Chainer "
            "distribution; keep parameters on '@numpy' or '@cupy:N' devices"
        )

    def use_fp32_update(self, flag: bool = True) -> None:
        """Update float16 parameters through a float32 master copy (mixed precision)."""
        self._use_fp32_update = bool(flag)
        if not flag:
            self._fp32_param = None

    # -- serialization -------------------------------------------------------------------

    def serialize(self, serializer: Any) -> None:
        """Save or load :attr:`t` and the state arrays (keys ``t`` and the state names)."""
        self._serialize(serializer, param_initialized=True)

    def _serialize(self, serializer: Any, param_initialized: bool, param: variable.Variable | None = None) -> None:
        # param_initialized: whether the parameter of this rule has its array. An optimizer
        # passes it so that a rule whose parameter was never initialized (it counted
        # updates but made no state) loads from a file without state. param: the parameter,
        # against whose shape a loaded state is checked.
        loading = _is_deserializer(serializer)
        if loading and getattr(serializer, "_validating", False) is True and hasattr(serializer, "_peek"):
            self._check_loadable(serializer, param_initialized, param)
            return
        self.t = serializer("t", self.t)
        if loading:
            # The master copy would overwrite the loaded parameter on the next update.
            self._fp32_param = None
        if self._state is not None:
            for key in self._state:
                self._state[key] = serializer(key, self._state[key])
            return
        if not loading:
            return
        loaded: dict[str, Any] = {}
        first_missing: KeyError | None = None
        for key in self._state_keys():
            try:
                value = serializer(key, None)
            except KeyError as error:
                first_missing = first_missing or error
                continue
            if value is None:
                # No state saved: it is created at the next update.
                return
            loaded[key] = value
        if first_missing is not None:
            # A rule that made no state (frozen, saved before its first update, or whose
            # parameter was never initialized) saved none: it is created at the next
            # update. A partial state, or none after updates of an initialized
            # parameter (another optimizer's file), is a mismatch (strict mode).
            if self.enabled and (loaded or (param_initialized and self.t > 0)):
                raise first_missing
            return
        if param is not None and param.array is not None:
            self._check_state_shapes(param, loaded, serializer)
        else:
            self._unchecked_state = True
        self._state = loaded

    def _check_loadable(self, serializer: Any, param_initialized: bool, param: variable.Variable | None) -> None:
        # The validation pass of load_npz/load_hdf5: raise what the loading pass would
        # raise, change nothing. Its deserializer hands out no values, so the saved t and
        # state, on which the checks depend, are read with _peek.
        serializer("t", self.t)
        if self._state is not None:
            for key, value in self._state.items():
                serializer(key, value)
            return
        missing = object()
        # The check above made sure that a saved t is a single integral number.
        saved_t = serializer._peek("t", self.t)
        saved_t = 0 if saved_t is None else int(numpy.asarray(saved_t).reshape(()).item())
        keys = self._state_keys()
        saved = {key: serializer._peek(key, missing) for key in keys}
        if any(value is None for value in saved.values()):
            return
        absent = [key for key in keys if saved[key] is missing]
        if absent:
            # The same rule as the loading pass.
            partial = len(absent) < len(keys)
            if self.enabled and (partial or (param_initialized and saved_t > 0)):
                serializer(absent[0], None)  # raises the deserializer's missing-key error (strict mode)
            return
        for key in keys:
            serializer(key, None)
        if param is not None and param.array is not None:
            self._check_state_shapes(param, saved, serializer)

    def _check_state_shapes(self, param: variable.Variable, state: dict[str, Any], serializer: Any) -> None:
        """Raise unless every array of ``state`` has the shape :meth:`init_state` gives it
        for ``param``: a state of the right size but another shape would be updated (by a
        compiled kernel, or through broadcasting) as if it belonged to another parameter.
        ``serializer`` is the deserializer of a load (``None`` at an update)."""
        expected = self._initial_state_shapes(param)
        for key, value in state.items():
            found = getattr(value, "shape", None)
            wanted = expected.get(key)
            if found is None or wanted is None or tuple(found) == wanted:
                continue
            if serializer is None:
                raise ValueError(
                    f"{type(self).__name__}.update: the state {key!r} of the parameter {param.name!r} has shape "
                    f"{tuple(found)}, but for a parameter of shape {param.shape} it must be {wanted} (was the state "
                    "loaded from another model?)"
                )
            from chainer.serializers import _base  # not at import: the serializers import optimizers

            source = getattr(serializer, "_source", None)
            where = getattr(source, "where", type(serializer).__name__)
            path = str(getattr(serializer, "path", "")).rstrip("/")
            raise _base.ShapeMismatchError(
                f"{where}: the optimizer state {key!r} of the parameter {path!r} has shape {tuple(found)} in the file, "
                f"but {type(self).__name__} needs {wanted} for the parameter's shape {param.shape}; the file belongs "
                "to another model"
            )

    def _initial_state_shapes(self, param: variable.Variable) -> dict[str, tuple[int, ...]]:
        # What init_state makes for a parameter of this shape and dtype, found by running it
        # on a CPU stand-in (of zeros, which the OS maps lazily), so that a rule whose state
        # is not shaped like its parameter is checked right too. The rule's own state is
        # put back afterwards.
        saved = self._state
        self._state = {}
        try:
            stand_in = variable.Variable(
                numpy.zeros(param.shape, dtype=param.dtype), grad=numpy.zeros(param.shape, dtype=param.dtype)
            )
            self.init_state(stand_in)
            return {key: tuple(value.shape) for key, value in self._state.items() if hasattr(value, "shape")}
        finally:
            self._state = saved

    def _state_keys(self) -> list[str]:
        # The names init_state creates, found by running it on a one-element dummy
        # parameter. It runs on this rule itself (an init_state may refer to the rule
        # object rather than to self), whose state is None again afterwards.
        self._state = {}
        try:
            dummy = numpy.zeros(1, dtype=numpy.float32)
            self.init_state(variable.Variable(dummy, grad=dummy.copy()))
            return list(self._state)
        finally:
            self._state = None


def _dtype_or_none(param: Any) -> Any:
    try:
        return param.dtype
    except RuntimeError:  # an uninitialized parameter whose dtype is not known yet
        return None


def peek_grad(param: Any) -> Any:
    """The gradient of ``param``, ``None`` also for a parameter whose gradient cannot be read
    yet (created uninitialized and never cleared: reading ``grad`` raises)."""
    try:
        return param.grad
    except RuntimeError:
        return None


def _unscaled(grad: Any, scale: float) -> Any:
    # Out of place: the gradient array may be shared with another variable. float16 is
    # divided in float32, where any scale (and its reciprocal) is representable.
    if grad.dtype == numpy.float16:
        return (grad.astype(numpy.float32) / numpy.float32(scale)).astype(numpy.float16)
    return grad / grad.dtype.type(scale)


def is_own_array(array: Any) -> bool:
    """Whether ``array`` can be written in place without touching other data: writeable
    and not a broadcast view (a zero stride)."""
    flags = getattr(array, "flags", None)
    if flags is not None and not getattr(flags, "writeable", True):
        return False
    return array.size <= 1 or 0 not in array.strides


def _is_deserializer(serializer: Any) -> bool:
    try:
        from chainer import serializer as serializer_module
    except ImportError:
        serializer_module = None  # type: ignore[assignment]
    if serializer_module is not None:
        if isinstance(serializer, serializer_module.Deserializer):
            return True
        if isinstance(serializer, serializer_module.Serializer):
            return False
    return callable(getattr(serializer, "load", None)) and not callable(getattr(serializer, "save", None))


def _hook_name(owner: str, hook: Any, name: str | None) -> str:
    if name is None:
        name = getattr(hook, "name", None) or getattr(hook, "__name__", None)
    if isinstance(name, str) and name:
        return name
    # Chainer 7 keys a hook by any name object it has (a mock's name, for instance).
    if name is None or isinstance(name, str) or not isinstance(name, collections.abc.Hashable):
        raise ValueError(
            f"{owner}.add_hook: the hook {hook!r} has no name; pass name=... or give it a 'name' attribute"
        )
    return name


def _add_hook(
    owner: str,
    pre: OrderedDict[str, Any],
    post: OrderedDict[str, Any],
    hook: Any,
    name: str | None,
    timing: str,
) -> None:
    if not callable(hook):
        raise TypeError(f"{owner}.add_hook: the hook must be callable, got {type(hook).__name__}")
    if timing not in _TIMINGS:
        raise ValueError(f"{owner}.add_hook: timing must be one of {_TIMINGS}, got {timing!r}")
    if timing == "auto":
        # A hook without a usable timing attribute (not 'pre' or 'post') runs before the
        # update, as in Chainer 7.
        timing = getattr(hook, "timing", "pre")
        if not isinstance(timing, str) or timing not in ("pre", "post"):
            timing = "pre"
    name = _hook_name(owner, hook, name)
    if name in pre or name in post:
        raise KeyError(f'{owner}.add_hook: a hook named "{name}" already exists')
    (pre if timing == "pre" else post)[name] = hook


def _remove_hook(owner: str, pre: OrderedDict[str, Any], post: OrderedDict[str, Any], name: str) -> None:
    if name in pre:
        del pre[name]
    elif name in post:
        del post[name]
    else:
        raise KeyError(f'{owner}.remove_hook: no hook named "{name}"')


def _scalar(value: Any) -> Any:
    """A hyperparameter as a Python number (NumPy scalars would promote float16 arrays)."""
    return float(value) if isinstance(value, numpy.generic) else value


def _array_module(array: Any) -> Any:
    return numpy if isinstance(array, numpy.ndarray) else backend.get_array_module(array)
