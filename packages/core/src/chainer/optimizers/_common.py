"""Helpers shared by the optimizer implementations."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

import numpy

from chainer import _update_rule, optimizer


def scalar(value: Any) -> Any:
    """A hyperparameter as a Python number: a NumPy float64 scalar would promote float16
    arrays to float64 under NumPy 2's promotion rules."""
    return value.item() if isinstance(value, (numpy.generic, numpy.ndarray)) else value


def temp(array: Any) -> Any:
    """A temporary computed from arrays, as an array that ``out=`` can write to: NumPy
    returns a scalar, not a 0-d array, from arithmetic on 0-d arrays (0-d parameters)."""
    return array if not isinstance(array, numpy.generic) else numpy.asarray(array)


def check_kernel_shapes(rule: optimizer.UpdateRule, param: Any, grad: Any, **state: Any) -> None:
    """Raise unless ``grad`` and the ``state`` arrays (``None`` skipped) have the shape of
    ``param``: a compiled kernel walks its arrays as flat buffers of one length, so it
    would update with a state of another shape (but the same size) without noticing."""
    shape = param.shape
    wrong = {"grad": grad.shape} if grad.shape != shape else {}
    wrong.update((name, array.shape) for name, array in state.items() if array is not None and array.shape != shape)
    if wrong:
        found = ", ".join(f"{name} {found}" for name, found in wrong.items())
        raise ValueError(
            f"{type(rule).__name__}.update: the parameter {param.name!r} has shape {shape}, but {found}; the "
            "gradient and the state must have the parameter's shape (was the state loaded from another model?)"
        )


def _check(owner: str, values: dict[str, Any], flags: Iterable[str]) -> None:
    flags = set(flags)
    for name, value in values.items():
        if value is None:
            continue
        if name in flags:
            continue  # a flag is used for its truth value, as in Chainer 7
        if isinstance(value, (bool, numpy.bool_)) or not isinstance(value, (int, float, numpy.integer, numpy.floating)):
            raise TypeError(f"{owner}: {name} must be a real number, got {value!r}")


def make_defaults(**values: Any) -> optimizer.Hyperparameter:
    """The module-level default hyperparameters (the parent of rules made standalone)."""
    hp = optimizer.Hyperparameter()
    for name, value in values.items():
        setattr(hp, name, value)
    return hp


def set_rule_hyperparams(rule: optimizer.UpdateRule, flags: Iterable[str] = (), **values: Any) -> None:
    """Override the given (non-``None``) hyperparameters in a rule's own set."""
    _check(type(rule).__name__, values, flags)
    for name, value in values.items():
        if value is not None:
            setattr(rule.hyperparam, name, value)


def set_optimizer_hyperparams(opt: optimizer.GradientMethod, flags: Iterable[str] = (), **values: Any) -> None:
    """Store an optimizer's constructor arguments in its hyperparameter set."""
    _check(type(opt).__name__, values, flags)
    for name, value in values.items():
        setattr(opt.hyperparam, name, value)


class RuleBase(optimizer.UpdateRule):
    """The base of this package's update rules: what every rule does but its formula.

    A subclass declares, as class attributes, its module's default hyperparameters
    (``_defaults``, the parent of a rule made standalone), which hyperparameters are flags
    (``_flags``, checked to be bools) and the names of its state arrays that start as zeros
    shaped like the parameter (``_zero_state``); it implements :meth:`_update_param`. Its
    ``__init__`` keeps the documented signature and passes the hyperparameters on by name.
    """

    _defaults: ClassVar[optimizer.Hyperparameter]
    _flags: ClassVar[tuple[str, ...]] = ()
    _zero_state: ClassVar[tuple[str, ...]] = ()

    def __init__(self, parent_hyperparam: optimizer.Hyperparameter | None = None, **hyperparams: Any) -> None:
        super().__init__(parent_hyperparam or self._defaults)
        set_rule_hyperparams(self, self._flags, **hyperparams)

    def init_state(self, param: Any) -> None:
        xp = param.device.xp
        for name in self._zero_state:
            self.state[name] = xp.zeros_like(param.array)

    def update_core_cpu(self, param: Any) -> None:
        grad = _update_rule.peek_grad(param)
        if grad is not None and param.array is not None:
            self._update_param(param, grad)

    def update_core_gpu(self, param: Any) -> None:
        grad = _update_rule.peek_grad(param)
        if grad is not None and param.array is not None:
            self._update_param_gpu(param, grad)

    def _update_param_gpu(self, param: Any, grad: Any) -> None:
        """The update on a GPU: the array-module formulas of :meth:`_update_param` unless
        a rule has a fused kernel."""
        self._update_param(param, grad)

    def _update_param(self, param: Any, grad: Any) -> None:
        """Apply the update formula to ``param`` given its (non-``None``) gradient."""
        raise NotImplementedError(f"{type(self).__name__} must implement _update_param(param, grad)")


class MomentumRuleBase(RuleBase):
    """The base of the rules with a learning rate, a momentum and a velocity ``v``."""

    _zero_state = ("v",)

    def __init__(
        self,
        parent_hyperparam: optimizer.Hyperparameter | None = None,
        lr: float | None = None,
        momentum: float | None = None,
    ) -> None:
        super().__init__(parent_hyperparam, lr=lr, momentum=momentum)


class OptimizerBase(optimizer.GradientMethod):
    """The base of this package's optimizers: stores the constructor's hyperparameters
    (checked by the rule class's ``_flags``) and gives each parameter a ``_rule_class``.

    A subclass keeps its documented ``__init__`` signature and its
    :class:`~chainer.optimizer.HyperparameterProxy` attributes.
    """

    _rule_class: ClassVar[type[RuleBase]]

    def __init__(self, **hyperparams: Any) -> None:
        super().__init__()
        set_optimizer_hyperparams(self, self._rule_class._flags, **hyperparams)

    def create_update_rule(self) -> RuleBase:
        return self._rule_class(self.hyperparam)


class MomentumOptimizerBase(OptimizerBase):
    """The base of the optimizers whose rules derive from :class:`MomentumRuleBase`."""

    lr = optimizer.HyperparameterProxy("lr")
    momentum = optimizer.HyperparameterProxy("momentum")
