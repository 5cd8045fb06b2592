"""``LinearShift``: moves an optimizer attribute linearly between two values."""

from __future__ import annotations

from typing import Any

from chainer.training import _util
from chainer.training import extension as extension_module
from chainer.training.extensions import _shift


class LinearShift(extension_module.Extension):
    """Trainer extension to change an optimizer attribute linearly.

    With ``value_range = (v1, v2)`` and ``time_range = (t1, t2)``, the ``t``-th call
    sets ``optimizer.<attr>`` to ``v1`` while ``t <= t1``, to ``v2`` once ``t >= t2``, and
    to ``v1 + (v2 - v1) * (t - t1) / (t2 - t1)`` in between. Before the first call
    (``t = 0``) the attribute is ``v1``.

    Args:
        attr: The name of the optimizer attribute.
        value_range: ``(v1, v2)``.
        time_range: ``(t1, t2)``, counted in calls of the extension.
        optimizer: The optimizer; the updater's ``'main'`` optimizer if ``None``.

    Example:
        >>> from chainer.training import extensions
        >>> # lr = 0.1 up to call 1000, then linearly down to 0.01 at call 5000, then 0.01
        >>> shift = extensions.LinearShift('lr', (0.1, 0.01), (1000, 5000))
        >>> # trainer.extend(shift): see ExponentialShift's example for a whole run
    """

    def __init__(self, attr: str, value_range: Any, time_range: Any, optimizer: Any = None) -> None:
        if not isinstance(attr, str):
            raise TypeError(f"LinearShift: attr must be the name of an attribute, got {type(attr).__name__}")
        if len(value_range) != 2 or len(time_range) != 2:
            raise ValueError(
                f"LinearShift: value_range and time_range must be pairs, got {value_range} and {time_range}"
            )
        if not time_range[0] < time_range[1]:
            raise ValueError(f"LinearShift: time_range must be increasing, got {tuple(time_range)}")
        self._attr = attr
        self._value_range = tuple(value_range)
        self._time_range = tuple(time_range)
        self._optimizer = optimizer
        self._t = 0
        self._last_value: float | None = None

    def _get_optimizer(self, trainer: Any) -> Any:
        return self._optimizer or trainer.updater.get_optimizer("main")

    def _update_value(self, optimizer: Any, value: Any) -> None:
        setattr(optimizer, self._attr, value)
        self._last_value = value

    def initialize(self, trainer: Any) -> None:
        optimizer = self._get_optimizer(trainer)
        value = self._last_value if self._last_value is not None else self._compute_next_value()
        self._update_value(optimizer, value)

    def __call__(self, trainer: Any) -> None:
        self._t += 1
        self._update_value(self._get_optimizer(trainer), self._compute_next_value())

    def _compute_next_value(self) -> Any:
        t1, t2 = self._time_range
        v1, v2 = self._value_range
        if self._t <= t1:
            return v1
        if self._t >= t2:
            return v2
        rate = (self._t - t1) / (t2 - t1)
        return v1 + rate * (v2 - v1)

    def serialize(self, serializer: Any) -> None:
        t = serializer("_t", self._t)
        last = serializer("_last_value", self._last_value)
        if not _util.is_validating(serializer):
            self._t = int(t)
            self._last_value = _shift.as_float_or_none(last)


__all__ = ["LinearShift"]
