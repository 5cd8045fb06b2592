"""``PolynomialShift``: ``value = init * (1 - t / max_count) ** rate``."""

from __future__ import annotations

from typing import Any

from chainer.training.extensions import _shift


class PolynomialShift(_shift.ShiftBase):
    """Trainer extension to polynomially shift an optimizer attribute.

    At its ``t``-th call it sets
    ``optimizer.<attr> = init * max(1 - t / max_count, 0) ** rate`` (Caffe's ``poly``
    policy), reaching 0 after ``max_count`` calls for ``rate > 0``. With a ``target``,
    the value stops there: once it would go below it (``rate > 0``) or above it
    (``rate <= 0``), it is the target.

    Args:
        attr: The name of the optimizer attribute.
        rate: The exponent.
        max_count: The number of calls after which the factor is 0 (the number of
            iterations of training if the trigger is every iteration).
        init: The initial value; the attribute's value at the start if ``None``.
        target: The value at which the shift stops, or ``None``.
        optimizer: The optimizer; the updater's ``'main'`` optimizer if ``None``.

    Example:
        >>> from chainer.training import extensions
        >>> # lr = init * (1 - t / 10000) ** 0.5, from the optimizer's lr down to 0 at t = 10000
        >>> shift = extensions.PolynomialShift('lr', 0.5, 10000)
        >>> # trainer.extend(shift): see ExponentialShift's example for a whole run
    """

    def __init__(
        self,
        attr: str,
        rate: float,
        max_count: int,
        init: float | None = None,
        target: float | None = None,
        optimizer: Any = None,
    ) -> None:
        if not max_count > 0:
            raise ValueError(f"PolynomialShift: max_count must be positive, got {max_count}")
        super().__init__(attr, init, optimizer, target)
        self._rate = rate
        self._max_count = max_count

    def _compute(self, t: int) -> Any:
        decay = max(1 - t / self._max_count, 0)
        return self._stop_at_target(self._init * decay**self._rate, self._rate <= 0, target_over_value=True)


__all__ = ["PolynomialShift"]
