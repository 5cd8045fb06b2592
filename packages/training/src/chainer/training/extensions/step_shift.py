"""``StepShift``: ``value = init * gamma ** floor(t / step)``."""

from __future__ import annotations

from typing import Any

from chainer.training.extensions import _shift


class StepShift(_shift.ShiftBase):
    """Trainer extension to shift an optimizer attribute in "steps".

    At its ``t``-th call it sets ``optimizer.<attr> = init * gamma ** floor(t / step)``
    (Caffe's ``step`` policy): the value is multiplied by ``gamma`` every ``step`` calls.
    With a ``target``, the value stops there: once it would go above it (``gamma > 1``)
    or below it (``gamma <= 1``), it is the target.

    Args:
        attr: The name of the optimizer attribute.
        gamma: The factor applied every ``step`` calls.
        step: The number of calls between two changes.
        init: The initial value; the attribute's value at the start if ``None``.
        target: The value at which the shift stops, or ``None``.
        optimizer: The optimizer; the updater's ``'main'`` optimizer if ``None``.

    Example:
        >>> from chainer.training import extensions
        >>> # lr = init * 0.1 ** floor(t / 30000): divided by 10 every 30000 calls
        >>> shift = extensions.StepShift('lr', 0.1, 30000)
        >>> # trainer.extend(shift): see ExponentialShift's example for a whole run
    """

    def __init__(
        self,
        attr: str,
        gamma: float,
        step: int,
        init: float | None = None,
        target: float | None = None,
        optimizer: Any = None,
    ) -> None:
        if not step > 0:
            raise ValueError(f"StepShift: step must be positive, got {step}")
        super().__init__(attr, init, optimizer, target)
        self._gamma = gamma
        self._step = step

    def _compute(self, t: int) -> Any:
        return self._stop_at_target(self._init * self._gamma ** (t // self._step), self._gamma > 1)


__all__ = ["StepShift"]
