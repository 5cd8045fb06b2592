"""The recorded optimizer update of a static chain.

``GradientMethod.update`` walks the link tree several times per step (to reallocate
cleared gradients, to own them, for each hook, for the update itself) and each
parameter's ``UpdateRule.update`` redoes checks whose answer is fixed while the
parameters keep their arrays (the device, whether the state exists, whether it must
move to the device). For an optimizer whose target contains a static chain,
:class:`UpdatePlan` records, after a generic update, the list of ``(parameter, rule)``
pairs with the parameter arrays and state dicts they had, and the next updates run
that list: the same calls in the same order, so the parameters, the states and the
``t`` counters are bit for bit the generic update's.

A step takes the recorded list only when a check made before anything changes finds
that nothing the list depends on changed; otherwise the generic update runs and the
list is recorded again after it. Checked at every step:

* the optimizer: its class and the methods the generic update calls (not overridden
  by a subclass or on the instance since the recording), no loss scaling (static or
  dynamic), and every optimizer hook a known one (:data:`_KNOWN_HOOKS`: the hooks of
  :mod:`chainer.optimizer_hooks`, which touch only gradients; a user's hook may change
  anything, so it is left to the generic update);
* the link tree: the same parameters in the same order (one walk of ``params()``;
  a link has no counter of structural changes to read instead);
* each parameter: the same update rule, the same array, no gradient scaled by a loss
  scale, no float32 master copy; an enabled rule has the recorded state dict and no
  state left to check after a load; no method of the rule or of the parameter
  replaced on the instance, nor on their classes since the recording.

Read at every step as the generic update reads them (so they may change freely):
the hyperparameters (an ``lr`` schedule), ``update_rule.enabled`` (a parameter frozen
midway), the gradients (``None`` ones become zeros, shared or read-only ones are
copied), the rules' own hooks, and the optimizer hooks, which are called as the
generic update calls them (GradientClipping walks the parameters itself).

CUDA Graphs (a later step; CPU only here). The plan is recorded only for parameters
whose arrays are NumPy arrays. On CuPy the same list is a fixed sequence of kernel
launches on fixed buffers: the parameter arrays and state arrays are checked to be the
recorded ones at every step. What capture still needs, for the GPU session: record
CuPy parameters too (``_prepare`` moves loaded states to the device: keep calling it
for them, or check that the state arrays are on the parameter's device); the
gradients in fixed buffers (the captured backward returns kept gradient arrays, which
``cleargrads`` then backward store as ``param.grad``: check their identity like the
parameter arrays'); the hyperparameters as device scalars (0-d arrays) rather than
Python floats baked into the captured launches, or a recapture whenever one changes
(Adam's bias-corrected rate changes at every step); then capture one
:meth:`UpdatePlan._apply` on a non-default stream and launch that graph in its place.
Hooks with host synchronisation (GradientClipping reads the norm on the host) cannot
be captured: fall back to the uncaptured plan with them.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy

from chainer import _update_rule, optimizer, optimizer_hooks
from chainer._parameter import Parameter
from chainer._update_rule import UpdateRule

# The optimizer methods the generic update calls: the plan replaces their walks, so
# each must be the base's.
_OPTIMIZER_METHODS = (
    "reallocate_cleared_grads",
    "_own_grads",
    "check_nan_in_grads",
    "is_safe_to_update",
    "call_hooks",
    "call_hook",
    "update_loss_scale",
    "_params",
)
# The rule methods UpdateRule.update calls, which the plan calls in its place.
_RULE_METHODS = ("update", "_run_rule", "_prepare", "update_core")
_BASE_OPTIMIZER = {name: getattr(optimizer.GradientMethod, name) for name in _OPTIMIZER_METHODS}
_BASE_RULE = {name: getattr(UpdateRule, name) for name in _RULE_METHODS}
_BASE_PARAM_UPDATE = Parameter.update
# Optimizer hooks that only read and write gradients (no parameter, rule or link tree
# changes), by their __call__: the deprecated aliases in chainer.optimizer subclass
# these without replacing __call__.
_KNOWN_HOOKS = frozenset(
    cls.__call__
    for cls in (
        optimizer_hooks.GradientClipping,
        optimizer_hooks.GradientHardClipping,
        optimizer_hooks.GradientLARS,
        optimizer_hooks.GradientNoise,
        optimizer_hooks.Lasso,
        optimizer_hooks.WeightDecay,
    )
)
_is = operator.is_
_peek_grad = _update_rule.peek_grad
_float16 = numpy.dtype(numpy.float16)


def has_static_chain(link: Any) -> bool:
    """Whether ``link`` or a link under it has a forward decorated with ``static_graph``."""
    for lk in link.links():
        cls = type(lk)
        for name in ("forward", "__call__"):
            if hasattr(getattr(cls, name, None), "_static_forward"):
                return True
    return False


def _optimizer_usable(opt: Any) -> bool:
    if opt._loss_scale is not None or opt._loss_scaling_is_dynamic:
        return False
    cls = type(opt)
    d = opt.__dict__
    for name, base in _BASE_OPTIMIZER.items():
        if name in d or getattr(cls, name) is not base:
            return False
    for hooks in (opt._pre_update_hooks, opt._post_update_hooks):
        for hook in hooks.values():
            if type(hook).__call__ not in _KNOWN_HOOKS:
                return False
    return True


def _classes_unchanged(classes: tuple[type, ...]) -> bool:
    # A class method patched after the recording (mock.patch.object in tests) must be
    # called, which the plan's shortcuts would not do.
    for cls in classes:
        if issubclass(cls, Parameter):
            if cls.update is not _BASE_PARAM_UPDATE:
                return False
        elif any(getattr(cls, name) is not base for name, base in _BASE_RULE.items()):
            return False
    return True


class UpdatePlan:
    """The recorded update of an optimizer's parameters (``GradientMethod._update_plan``).

    :meth:`run` updates the parameters as ``GradientMethod.update`` would after the
    loss and backward, and returns ``True``; or, when something the recording depends
    on changed, changes nothing and returns ``False`` (the generic update runs, then
    :meth:`record`). See the module's docstring for what is checked.
    """

    __slots__ = ("_classes", "_entries", "_params", "steps")

    def __init__(self) -> None:
        self._params: tuple[Any, ...] | None = None
        self._entries: tuple[tuple[Any, Any, Any, Any], ...] = ()
        self._classes: tuple[type, ...] = ()
        # Updates made from the recorded list (for tests and benchmarks).
        self.steps = 0

    # An optimizer copied or pickled records again: the list binds the parameters of
    # the link it was recorded on.
    def __copy__(self) -> UpdatePlan:
        return UpdatePlan()

    def __deepcopy__(self, memo: Any) -> UpdatePlan:
        return UpdatePlan()

    def __reduce__(self) -> Any:
        return (UpdatePlan, ())

    @property
    def recorded(self) -> bool:
        """Whether a list is recorded (it may still be found stale at the next step)."""
        return self._params is not None

    def record(self, opt: Any) -> None:
        """Record the list after a generic update of ``opt``, or drop it when the
        optimizer or a parameter is not one the plan handles."""
        self._params = None
        if not _optimizer_usable(opt):
            return
        params = tuple(opt.target.params())
        entries = []
        classes = set()
        for param in params:
            if not isinstance(param, Parameter) or type(param.array) is not numpy.ndarray:
                return  # uninitialized, or not on the CPU (see the module's docstring)
            rule = param.update_rule
            classes.add(type(param))
            if rule is not None:
                classes.add(type(rule))
            entries.append((param, rule, param._array, None if rule is None else rule._state))
        self._entries = tuple(entries)
        self._classes = tuple(classes)
        if _classes_unchanged(self._classes) and self._entries_valid():
            self._params = params

    def _valid(self, opt: Any) -> bool:
        if not _optimizer_usable(opt) or not _classes_unchanged(self._classes):
            return False
        params = self._params
        current = tuple(opt.target.params())
        return len(current) == len(params) and all(map(_is, current, params)) and self._entries_valid()

    def _entries_valid(self) -> bool:
        for param, rule, array, state in self._entries:
            if (
                param._array is not array
                or param.update_rule is not rule
                or param._loss_scale is not None
                or "update" in param.__dict__
            ):
                return False
            if rule is None:
                continue
            d = rule.__dict__
            if "update" in d or "_run_rule" in d or "_prepare" in d or "update_core" in d:
                return False
            if rule._use_fp32_update and array.dtype == _float16:
                return False
            # A disabled rule changes nothing; an enabled one needs its state made and
            # checked (_prepare's first-update work, which the generic update does).
            if rule.enabled and (rule._state is not state or state is None or rule._unchecked_state):
                return False
        return True

    def run(self, opt: Any) -> bool:
        """Update the parameters of ``opt`` from the recorded list, as the generic
        update would; ``False`` (and nothing changed) when the list is stale."""
        if self._params is None or not self._valid(opt):
            return False
        self._apply(opt)
        self.steps += 1
        return True

    def _apply(self, opt: Any) -> None:
        # GradientMethod.update after the backward, in its order; the walks of the link
        # tree replaced by the recorded list.
        params = self._params
        optimizer._reallocate_cleared_grads(params)
        optimizer._own_grads(params)
        opt._loss_scaling_isnan = False  # check_nan_in_grads without dynamic loss scaling
        self._call_hooks(opt, opt._pre_update_hooks)
        opt.t += 1
        for param, rule, _, _ in self._entries:
            if rule is not None:
                _update_param(param, rule)
        optimizer._reallocate_cleared_grads(params)
        self._call_hooks(opt, opt._post_update_hooks)

    def _call_hooks(self, opt: Any, hooks: Any) -> None:
        # GradientMethod.call_hook for each hook, over the recorded list.
        for hook in tuple(hooks.values()):
            if getattr(hook, "call_for_each_param", False):
                for param in self._params:
                    rule = param.update_rule
                    if rule is not None and rule.enabled and param.array is not None:
                        hook(rule, param)
            else:
                hook(opt)
            optimizer._reallocate_cleared_grads(self._params)


def _update_param(param: Any, rule: Any) -> None:
    """``rule.update(param)`` for a parameter whose check passed: a NumPy array, no
    loss scale, no float32 master copy, its state made and on the CPU."""
    if not rule.enabled:
        return
    rule.t += 1
    pre = rule._pre_update_hooks
    if pre or rule._post_update_hooks:
        grad = _peek_grad(param)
        if pre and grad is not None and not _update_rule.is_own_array(grad):
            param.grad = grad.copy()  # hooks write into the gradient
        rule._run_rule(param)
    else:
        # _run_rule without hooks is update_core, which calls this for NumPy arrays.
        rule.update_core_cpu(param)
