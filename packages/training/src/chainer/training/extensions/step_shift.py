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
        >>> from chainer import training
        >>> from chainer.training import extensions
        >>> model = L.Classifier(L.Linear(3, 2))
        >>> optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
        >>> train = chainer.datasets.TupleDataset(np.ones((4, 3), 'f'), np.zeros(4, 'i'))
        >>> train_iter = chainer.iterators.SerialIterator(train, 2)
        >>> trainer = training.Trainer(training.StandardUpdater(train_iter, optimizer), (2, 'epoch'))
        >>> trainer.extend(extensions.StepShift('lr', 0.1, 30000))
        >>> trainer.run()
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
        super().__init__(attr, init, optimizer)
        self._gamma = gamma
        self._step = step
        self._target = target

    def _compute(self, t: int) -> Any:
        value = self._init * self._gamma ** (t // self._step)
        target = self._target
        if target is not None:
            r = _shift.ratio(value, target)
            if (self._gamma > 1 and r > 1) or (self._gamma <= 1 and r < 1):
                value = target
        return value


__all__ = ["StepShift"]
