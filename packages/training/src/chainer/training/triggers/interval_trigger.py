"""``IntervalTrigger``: fires every ``period`` iterations or epochs."""

from __future__ import annotations

import numbers
import warnings
from typing import Any

from chainer.training import _util

_UNITS = ("epoch", "iteration")


def check_period_unit(period: Any, unit: Any, where: str) -> None:
    if unit not in _UNITS:
        raise ValueError(f"{where}: unit must be 'epoch' or 'iteration', got {unit!r}")
    if isinstance(period, bool) or not isinstance(period, numbers.Real):
        raise TypeError(f"{where}: period must be a number, got {type(period).__name__}")
    if not float(period) > 0:
        raise ValueError(f"{where}: period must be positive, got {period}")
    if unit == "iteration" and not float(period).is_integer():
        raise ValueError(f"{where}: a period in iterations must be a whole number, got {period}")


class IntervalTrigger:
    """Trigger based on a fixed interval.

    It fires each time the training crosses a multiple of ``period`` ``unit``\\ s: with
    ``(2, 'epoch')`` at the end of epochs 2, 4, 6...; with ``(100, 'iteration')`` at
    iterations 100, 200... For epochs, the crossing is measured on
    ``updater.epoch_detail`` (fractional epochs such as ``(0.5, 'epoch')`` work), so a
    mini-batch that ends an epoch fires it even when the epoch length is not a multiple
    of the batch size.

    Args:
        period: The length of the interval.
        unit: ``'iteration'`` or ``'epoch'``.

    Example:
        >>> from chainer import training
        >>> from chainer.training import extensions
        >>> model = L.Classifier(L.Linear(3, 2))
        >>> optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
        >>> train = chainer.datasets.TupleDataset(np.ones((4, 3), 'f'), np.zeros(4, 'i'))
        >>> train_iter = chainer.iterators.SerialIterator(train, 2)
        >>> trainer = training.Trainer(training.StandardUpdater(train_iter, optimizer), (2, 'epoch'))
        >>> from chainer.training.triggers import IntervalTrigger
        >>> trainer.extend(extensions.snapshot(), trigger=IntervalTrigger(2, 'epoch'))
        >>> trainer.run()
        >>> import os
        >>> os.listdir('result')
        ['snapshot_iter_4']
    """

    def __init__(self, period: float, unit: str) -> None:
        check_period_unit(period, unit, "IntervalTrigger")
        self.period = period
        self.unit = unit
        # Where the updater was at the previous call; -1 after loading a snapshot that
        # did not save them (then the updater's own previous position is used).
        self._previous_iteration: int = 0
        self._previous_epoch_detail: float = 0.0
        # Kept for compatibility: the number of whole periods elapsed (epoch unit).
        self.count = 0

    def __call__(self, trainer: Any) -> bool:
        """Return ``True`` if a multiple of the period was crossed since the last call."""
        updater = trainer.updater
        if self.unit == "epoch":
            current = updater.epoch_detail
            previous = self._previous_epoch_detail
            if previous < 0:
                previous = updater.previous_epoch_detail
                if previous is None:
                    previous = 0.0
            self.count = int(current // self.period)
            fire = previous // self.period != current // self.period
        else:
            current = updater.iteration
            previous = self._previous_iteration
            if previous < 0:
                previous = current - 1
            fire = previous // self.period != current // self.period
        self._previous_iteration = updater.iteration
        epoch_detail = getattr(updater, "epoch_detail", None)
        if epoch_detail is not None:
            self._previous_epoch_detail = epoch_detail
        return bool(fire)

    def get_training_length(self) -> tuple[float, str]:
        """``(period, unit)``: used by ``ProgressBar`` when this is the stop trigger."""
        return self.period, self.unit

    def serialize(self, serializer: Any) -> None:
        """Save or load the position of the previous call (keys ``previous_iteration``
        and ``previous_epoch_detail``, as in Chainer 7)."""
        validating = _util.is_validating(serializer)
        try:
            self._previous_iteration = int(serializer("previous_iteration", self._previous_iteration))
        except KeyError:
            if validating:
                return
            warnings.warn(
                "IntervalTrigger: the snapshot has no previous_iteration; it is guessed from the current "
                "iteration, which is wrong if this trigger is not called every iteration"
            )
            self._previous_iteration = -1
        try:
            self._previous_epoch_detail = float(serializer("previous_epoch_detail", self._previous_epoch_detail))
        except KeyError:
            if validating:
                return
            warnings.warn(
                "IntervalTrigger: the snapshot has no previous_epoch_detail; the updater's previous epoch "
                "detail is used instead"
            )
            self._previous_epoch_detail = -1.0

    def __str__(self) -> str:
        return f"IntervalTrigger({self.period}, {self.unit!r})"

    __repr__ = __str__


__all__ = ["IntervalTrigger"]
