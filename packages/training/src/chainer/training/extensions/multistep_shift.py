"""``MultistepShift``: multiplies an optimizer attribute by ``gamma`` at given steps."""

from __future__ import annotations

from typing import Any

from chainer.training import _util
from chainer.training import extension as extension_module


class MultistepShift(extension_module.Extension):
    """Trainer extension to shift an optimizer attribute in several steps.

    The attribute is ``init * gamma ** k``, where ``k`` is the number of entries of
    ``step_value`` reached so far: the ``t``-th call moves to the next step when
    ``t >= step_value[k]`` (Caffe's ``multistep`` policy).

    Args:
        attr: The name of the optimizer attribute.
        gamma: The factor applied at each step.
        step_value: Increasing call counts at which the value changes.
        init: The initial value; the attribute's value at the start if ``None``.
        optimizer: The optimizer; the updater's ``'main'`` optimizer if ``None``.

    Example:
        >>> from chainer.training import extensions
        >>> # lr = 0.1, then 0.01 from call 32000, then 0.001 from call 48000
        >>> shift = extensions.MultistepShift('lr', 0.1, [32000, 48000], 0.1)
        >>> # trainer.extend(shift): see ExponentialShift's example for a whole run
    """

    def __init__(self, attr: str, gamma: float, step_value: Any, init: float | None, optimizer: Any = None) -> None:
        if not isinstance(attr, str):
            raise TypeError(f"MultistepShift: attr must be the name of an attribute, got {type(attr).__name__}")
        step_value = list(step_value)
        if any(b < a for a, b in zip(step_value, step_value[1:])):
            raise ValueError(f"MultistepShift: step_value must be increasing, got {step_value}")
        self._attr = attr
        self._gamma = gamma
        self._step_value = step_value
        self._init: Any = init
        self._optimizer = optimizer
        self._stepvalue_size = len(step_value)
        self._current_step = 0
        self._t = 0

    def _get_optimizer(self, trainer: Any) -> Any:
        return self._optimizer or trainer.updater.get_optimizer("main")

    def _value(self) -> Any:
        return self._init * self._gamma**self._current_step

    def initialize(self, trainer: Any) -> None:
        optimizer = self._get_optimizer(trainer)
        if self._init is None:
            self._init = getattr(optimizer, self._attr)
        # When resuming, the step reached before (not the initial value) applies to
        # the next update, as in the uninterrupted run.
        setattr(optimizer, self._attr, self._value())

    def __call__(self, trainer: Any) -> None:
        self._t += 1
        if self._current_step < self._stepvalue_size and self._t >= self._step_value[self._current_step]:
            self._current_step += 1
        setattr(self._get_optimizer(trainer), self._attr, self._value())

    def serialize(self, serializer: Any) -> None:
        t = serializer("_t", self._t)
        step = serializer("_current_step", self._current_step)
        if not _util.is_validating(serializer):
            self._t, self._current_step = int(t), int(step)


__all__ = ["MultistepShift"]
