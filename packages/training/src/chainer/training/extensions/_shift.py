"""Common machinery of the extensions that change an optimizer attribute over time."""

from __future__ import annotations

from typing import Any

import numpy

from chainer.training import _util
from chainer.training import extension as extension_module


def ratio(a: float, b: float) -> float:
    """``a / b`` with IEEE semantics (``1 / 0 == inf``), as the schedules compare it."""
    with numpy.errstate(divide="ignore", invalid="ignore"):
        return float(numpy.float64(a) / numpy.float64(b))


def as_float_or_none(value: Any) -> float | None:
    if value is None:
        return None
    return float(numpy.asarray(value).reshape(()))


class ShiftBase(extension_module.Extension):
    """Sets ``optimizer.<attr>`` at each call from the number of calls ``t``.

    ``initialize`` takes the initial value from the optimizer when ``init`` is ``None``
    and sets the attribute to the value of the current ``t`` (the initial value, or the
    last value when resuming), so that the first update after a resume uses the same
    value as the uninterrupted run did. State: ``_t`` and ``_last_value`` (Chainer 7's
    keys). A subclass gives the formula, ``_compute(t)``; a schedule with a ``target``
    passes its value through :meth:`_stop_at_target`.
    """

    def __init__(self, attr: str, init: Any, optimizer: Any, target: Any = None) -> None:
        if not isinstance(attr, str):
            raise TypeError(f"{type(self).__name__}: attr must be the name of an attribute, got {type(attr).__name__}")
        self._attr = attr
        self._init = init
        self._optimizer = optimizer
        self._target = target
        self._t = 0
        self._last_value: float | None = None

    def _get_optimizer(self, trainer: Any) -> Any:
        optimizer = self._optimizer or trainer.updater.get_optimizer("main")
        if not hasattr(optimizer, self._attr):
            raise AttributeError(
                f"{type(self).__name__}: the optimizer {type(optimizer).__name__} has no attribute {self._attr!r}"
            )
        return optimizer

    def _update_value(self, optimizer: Any, value: Any) -> None:
        setattr(optimizer, self._attr, value)
        self._last_value = value

    def _compute(self, t: int) -> Any:
        raise NotImplementedError

    def _stop_at_target(self, value: Any, rising: bool, *, target_over_value: bool = False) -> Any:
        """``value``, or the target once ``value`` has gone past it (above it if ``rising``,
        below it otherwise).

        Past means ``value / target > 1`` when rising and ``< 1`` when falling, which holds
        for negative values too. With ``target_over_value`` the ratio is ``target / value``
        instead, with the comparisons swapped (PolynomialShift's test, as in Chainer 7).
        """
        target = self._target
        if target is None:
            return value
        if target_over_value:
            r = ratio(target, value)
            passed = r < 1 if rising else r > 1
        else:
            r = ratio(value, target)
            passed = r > 1 if rising else r < 1
        return target if passed else value

    def initialize(self, trainer: Any) -> None:
        optimizer = self._get_optimizer(trainer)
        if self._init is None:
            self._init = getattr(optimizer, self._attr)
        if self._last_value is not None:  # resumed from a snapshot
            self._update_value(optimizer, self._last_value)
        else:
            self._update_value(optimizer, self._init)

    def __call__(self, trainer: Any) -> None:
        self._t += 1
        self._update_value(self._get_optimizer(trainer), self._compute(self._t))

    def serialize(self, serializer: Any) -> None:
        t = serializer("_t", self._t)
        last = serializer("_last_value", self._last_value)
        if not _util.is_validating(serializer):
            self._t = int(t)
            self._last_value = as_float_or_none(last)
