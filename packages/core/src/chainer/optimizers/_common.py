"""Helpers shared by the optimizer implementations."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy

from chainer import optimizer


def scalar(value: Any) -> Any:
    """A hyperparameter as a Python number: a NumPy float64 scalar would promote float16
    arrays to float64 under NumPy 2's promotion rules."""
    return value.item() if isinstance(value, (numpy.generic, numpy.ndarray)) else value


def _check(owner: str, values: dict[str, Any], flags: Iterable[str]) -> None:
    flags = set(flags)
    for name, value in values.items():
        if value is None:
            continue
        if name in flags:
            if not isinstance(value, (bool, numpy.bool_)):
                raise TypeError(f"{owner}: {name} must be a bool, got {value!r}")
        elif isinstance(value, (bool, numpy.bool_)) or not isinstance(
            value, (int, float, numpy.integer, numpy.floating)
        ):
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
