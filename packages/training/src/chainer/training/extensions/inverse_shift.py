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
        >>> from chainer import training
        >>> from chainer.training import extensions
        >>> model = L.Classifier(L.Linear(3, 2))
        >>> optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
        >>> train = chainer.datasets.TupleDataset(np.ones((4, 3), 'f'), np.zeros(4, 'i'))
        >>> train_iter = chainer.iterators.SerialIterator(train, 2)
        >>> trainer = training.Trainer(training.StandardUpdater(train_iter, optimizer), (2, 'epoch'))
        >>> trainer.extend(extensions.InverseShift('lr', 1e-4, 0.75))
        >>> trainer.run()
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
        super().__init__(attr, init, optimizer)
        self._gamma = gamma
        self._power = power
        self._target = target

    def _compute(self, t: int) -> Any:
        value = self._init * (1 + self._gamma * t) ** (-self._power)
        target = self._target
        if target is not None:
            r = _shift.ratio(value, target)
            if (self._power < 0 and r > 1) or (self._power >= 0 and r < 1):
                value = target
        return value


__all__ = ["InverseShift"]
