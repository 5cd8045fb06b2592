"""Triggers that fire when an observed value becomes the best so far."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy

from chainer import reporter
from chainer.training import _util
from chainer.training import util as training_util


class BestValueTrigger:
    """Trigger invoked when a specific value becomes the best.

    Every call accumulates ``observation[key]`` (when present) into a mean; when the
    interval ``trigger`` fires, the mean is compared with the best mean so far and the
    trigger fires if ``compare(best, mean)`` is true (or if it is the first mean).

    Args:
        key: The observation key to watch (e.g. ``'validation/main/loss'``).
        compare: ``compare(best, new) -> bool``: whether ``new`` is better.
        trigger: When to compare: ``(period, unit)`` or a trigger.

    Example:
        >>> from chainer.training.triggers import BestValueTrigger
        >>> trigger = BestValueTrigger('validation/main/loss', lambda best, new: new < best)
    """

    def __init__(self, key: str, compare: Callable[[float, float], bool], trigger: Any = (1, "epoch")) -> None:
        if not isinstance(key, str):
            raise TypeError(f"{type(self).__name__}: key must be a str, got {type(key).__name__}")
        if not callable(compare):
            raise TypeError(f"{type(self).__name__}: compare must be callable, got {type(compare).__name__}")
        self._key = key
        self._best_value: float | None = None
        self._interval_trigger = training_util.get_trigger(trigger)
        self._compare = compare
        self._init_summary()

    def _init_summary(self) -> None:
        self._summary = reporter.DictSummary()

    def __call__(self, trainer: Any) -> bool:
        """Return ``True`` when the interval ends with a new best mean value."""
        observation = trainer.observation
        key = self._key
        if key in observation:
            self._summary.add({key: observation[key]})
        if not self._interval_trigger(trainer):
            return False
        stats = self._summary.compute_mean()
        self._init_summary()
        if key not in stats:
            return False
        value = float(stats[key])
        if self._best_value is None or self._compare(self._best_value, value):
            self._best_value = value
            return True
        return False

    def serialize(self, serializer: Any) -> None:
        """Save or load the interval trigger, the running mean and the best value."""
        if hasattr(self._interval_trigger, "serialize"):
            self._interval_trigger.serialize(serializer["interval_trigger"])
        self._summary.serialize(serializer["summary"])
        best = serializer("best_value", self._best_value)
        if not _util.is_validating(serializer):
            self._best_value = None if best is None else float(numpy.asarray(best))


class MaxValueTrigger(BestValueTrigger):
    """Trigger invoked when a specific value becomes the maximum so far.

    Example:
        >>> from chainer import training
        >>> from chainer.training import extensions
        >>> model = L.Classifier(L.Linear(3, 2))
        >>> optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
        >>> train = chainer.datasets.TupleDataset(np.ones((4, 3), 'f'), np.zeros(4, 'i'))
        >>> train_iter = chainer.iterators.SerialIterator(train, 2)
        >>> trainer = training.Trainer(training.StandardUpdater(train_iter, optimizer), (2, 'epoch'))
        >>> from chainer.training.triggers import MaxValueTrigger
        >>> test_iter = chainer.iterators.SerialIterator(train, 2, repeat=False, shuffle=False)
        >>> trainer.extend(extensions.Evaluator(test_iter, model))
        >>> trainer.extend(extensions.snapshot_object(model, 'best_model'),
        ...                trigger=MaxValueTrigger('validation/main/accuracy'))
        >>> trainer.run()
        >>> import os
        >>> os.listdir('result')
        ['best_model']
    """

    def __init__(self, key: str, trigger: Any = (1, "epoch")) -> None:
        super().__init__(key, operator.lt, trigger)


class MinValueTrigger(BestValueTrigger):
    """Trigger invoked when a specific value becomes the minimum so far.

    Example:
        >>> from chainer import training
        >>> from chainer.training import extensions
        >>> model = L.Classifier(L.Linear(3, 2))
        >>> optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
        >>> train = chainer.datasets.TupleDataset(np.ones((4, 3), 'f'), np.zeros(4, 'i'))
        >>> train_iter = chainer.iterators.SerialIterator(train, 2)
        >>> trainer = training.Trainer(training.StandardUpdater(train_iter, optimizer), (2, 'epoch'))
        >>> from chainer.training.triggers import MinValueTrigger
        >>> test_iter = chainer.iterators.SerialIterator(train, 2, repeat=False, shuffle=False)
        >>> trainer.extend(extensions.Evaluator(test_iter, model))
        >>> trainer.extend(extensions.snapshot_object(model, 'best_model'),
        ...                trigger=MinValueTrigger('validation/main/loss'))
        >>> trainer.run()
        >>> import os
        >>> os.listdir('result')
        ['best_model']
    """

    def __init__(self, key: str, trigger: Any = (1, "epoch")) -> None:
        super().__init__(key, operator.gt, trigger)


__all__ = ["BestValueTrigger", "MaxValueTrigger", "MinValueTrigger"]
