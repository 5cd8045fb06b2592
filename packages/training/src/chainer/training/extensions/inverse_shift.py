"""``InverseShift``: ``value = init * (1 + gamma * t) ** -power``."""

from __future__ import annotations

from typing import Any

from chainer.training.extensions import _shift


class InverseShift(_shift.ShiftBase):
    """Trainer extension to shift an optimizer attribute.

    At its ``t``-th call it sets ``optimizer.<attr> = init * (1 + gamma * t) ** (-power)``
    (Caffe's ``inv`` learning-rate policy). With a ``target``, the value stops there:
    once it would go above it (``power < 0``) or below it (``power >= 0``), it is the
    target.

    Args:
        attr: The name of the optimizer attribute.
        gamma: The factor of ``t`` (not negative).
        power: The exponent.
        init: The initial value; the attribute's value at the start if ``None``.
        target: The value at which the shift stops, or ``None``.
        optimizer: The optimizer; the updater's ``'main'`` optimizer if ``None``.

    Example:
        >>> from chainer.training import extensions
        >>> # lr = init * (1 + 1e-4 * t) ** -0.75
        >>> shift = extensions.InverseShift('lr', 1e-4, 0.75)
        >>> # trainer.extend(shift): see ExponentialShift's example for a whole run
    """

    def __init__(
        self,
        attr: str,
        gamma: float,
        power: float,
        init: float | None = None,
        target: float | None = None,
        optimizer: Any = None,
    ) -> None:
        if gamma < 0:
            raise ValueError(f"InverseShift does not support a negative gamma, got {gamma}")
        super().__init__(attr, init, optimizer, target)
        self._gamma = gamma
        self._power = power

    def _compute(self, t: int) -> Any:
        return self._stop_at_target(self._init * (1 + self._gamma * t) ** (-self._power), self._power < 0)


__all__ = ["InverseShift"]
