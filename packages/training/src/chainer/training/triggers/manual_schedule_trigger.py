"""``ManualScheduleTrigger``: fires at given iterations or epochs."""

from __future__ import annotations

import numbers
import warnings
from typing import Any

from chainer.training import _util


class ManualScheduleTrigger:
    """Trigger invoked at specified point(s) of iterations or epochs.

    It fires when the training reaches or passes one of ``points``: at iteration
    ``p`` for ``'iteration'``, at the first iteration whose ``epoch_detail`` is at least
    ``p`` for ``'epoch'``. After the last point it is :attr:`finished`.

    Args:
        points: A number or a list of numbers.
        unit: ``'iteration'`` or ``'epoch'``.

    Attributes:
        finished: ``True`` once the training has reached the last point (as seen at
            the last call).

    Example:
        >>> from chainer import training
        >>> from chainer.training import extensions
        >>> model = L.Classifier(L.Linear(3, 2))
        >>> optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
        >>> train = chainer.datasets.TupleDataset(np.ones((4, 3), 'f'), np.zeros(4, 'i'))
        >>> train_iter = chainer.iterators.SerialIterator(train, 2)
        >>> trainer = training.Trainer(training.StandardUpdater(train_iter, optimizer), (2, 'epoch'))
        >>> from chainer.training.triggers import ManualScheduleTrigger
        >>> @training.make_extension()
        ... def lr_drop(trainer):
        ...     optimizer.lr *= 0.1
        >>> trainer.extend(lr_drop, trigger=ManualScheduleTrigger([3], 'iteration'))
        >>> trainer.run()
        >>> round(optimizer.lr, 6)
        0.01
    """

    def __init__(self, points: Any, unit: str) -> None:
        if unit not in ("epoch", "iteration"):
            raise ValueError(f"ManualScheduleTrigger: unit must be 'epoch' or 'iteration', got {unit!r}")
        if isinstance(points, numbers.Real) and not isinstance(points, bool):
            points = [points]
        try:
            points = list(points)
        except TypeError:
            raise TypeError(
                f"ManualScheduleTrigger: points must be a number or a list of numbers, got {type(points).__name__}"
            ) from None
        if not points or not all(isinstance(p, numbers.Real) and not isinstance(p, bool) for p in points):
            raise ValueError(f"ManualScheduleTrigger: points must be a non-empty list of numbers, got {points!r}")
        self.points = points
        self.unit = unit
        self.finished = False
        self._previous_iteration: int = 0
        self._previous_epoch_detail: float = 0.0

    def __call__(self, trainer: Any) -> bool:
        """Return ``True`` if a point lies in ``(previous, current]``."""
        updater = trainer.updater
        if self.unit == "epoch":
            current = updater.epoch_detail
            previous = self._previous_epoch_detail
            if previous < 0:
                previous = updater.previous_epoch_detail
                if previous is None:
                    previous = 0.0
        else:
            current = updater.iteration
            previous = self._previous_iteration
            if previous < 0:
                previous = current - 1
        fire = any(previous < p <= current for p in self.points)
        # From the position alone, so that a trigger loaded from a snapshot that did not
        # save it (Chainer 7 before v6) knows it too.
        self.finished = current >= max(self.points)
        self._previous_iteration = updater.iteration
        epoch_detail = getattr(updater, "epoch_detail", None)
        if epoch_detail is not None:
            self._previous_epoch_detail = epoch_detail
        return fire

    def serialize(self, serializer: Any) -> None:
        """Save or load the previous position and ``finished``."""
        validating = _util.is_validating(serializer)
        try:
            self._previous_iteration = int(serializer("previous_iteration", self._previous_iteration))
        except KeyError:
            if not validating:
                warnings.warn("ManualScheduleTrigger: the snapshot has no previous_iteration; it is guessed")
                self._previous_iteration = -1
        try:
            self._previous_epoch_detail = float(serializer("previous_epoch_detail", self._previous_epoch_detail))
        except KeyError:
            if not validating:
                warnings.warn("ManualScheduleTrigger: the snapshot has no previous_epoch_detail; it is guessed")
                self._previous_epoch_detail = -1.0
        try:
            self.finished = bool(serializer("finished", self.finished))
        except KeyError:
            pass


__all__ = ["ManualScheduleTrigger"]
