"""``TimeTrigger``: fires every ``period`` seconds of training."""

from __future__ import annotations

import numbers
from typing import Any


class TimeTrigger:
    """Trigger based on a fixed time interval.

    It fires at the first call after each multiple of ``period`` seconds of
    ``trainer.elapsed_time`` (which includes the time before a resumed snapshot).

    Args:
        period: The interval in seconds.

    Example:
        >>> from chainer import training
        >>> from chainer.training import extensions
        >>> model = L.Classifier(L.Linear(3, 2))
        >>> optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
        >>> train = chainer.datasets.TupleDataset(np.ones((4, 3), 'f'), np.zeros(4, 'i'))
        >>> train_iter = chainer.iterators.SerialIterator(train, 2)
        >>> trainer = training.Trainer(training.StandardUpdater(train_iter, optimizer), (2, 'epoch'))
        >>> from chainer.training.triggers import TimeTrigger
        >>> trainer.extend(extensions.snapshot(), trigger=TimeTrigger(3600))  # once an hour
    """

    def __init__(self, period: float) -> None:
        if isinstance(period, bool) or not isinstance(period, numbers.Real) or not period > 0:
            raise ValueError(f"TimeTrigger: period must be a positive number of seconds, got {period!r}")
        self._period: float = float(period)
        self._next_time: float = self._period

    def __call__(self, trainer: Any) -> bool:
        if self._next_time < trainer.elapsed_time:
            self._next_time += self._period
            return True
        return False

    def serialize(self, serializer: Any) -> None:
        """Save or load when it fires next (key ``next_time``)."""
        self._next_time = float(serializer("next_time", self._next_time))


__all__ = ["TimeTrigger"]
