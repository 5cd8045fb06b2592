"""``MicroAverage``: the ratio of two sums of reported values over an interval."""

from __future__ import annotations

from typing import Any

from chainer import reporter
from chainer.training import _util
from chainer.training import extension as extension_module
from chainer.training import util as training_util


def _to_number(value: Any) -> float:
    value = getattr(value, "array", value)  # a Variable
    return float(value.item()) if hasattr(value, "item") else float(value)


class MicroAverage(extension_module.Extension):
    """Calculates micro-average ratio.

    Every iteration it adds ``observation[numerator_key]`` and
    ``observation[denominator_key]`` to running sums; when ``trigger`` fires it
    reports ``numerator_sum / denominator_sum`` as ``result_key`` and restarts the sums.
    Where a model reports, per mini-batch, the number of correct predictions and the
    number of examples, this gives the accuracy over all examples of the interval (a
    *micro* average), instead of the mean of per-batch accuracies.

    Args:
        numerator_key: Observation key of the numerator (e.g. ``'main/correct'``).
        denominator_key: Observation key of the denominator (e.g. ``'main/total'``).
        result_key: The key the ratio is reported as.
        trigger: When to report: ``(period, unit)`` or a trigger.

    Example:
        >>> from chainer import training
        >>> from chainer.training import extensions
        >>> model = L.Classifier(L.Linear(3, 2))
        >>> optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
        >>> train = chainer.datasets.TupleDataset(np.ones((4, 3), 'f'), np.zeros(4, 'i'))
        >>> train_iter = chainer.iterators.SerialIterator(train, 2)
        >>> trainer = training.Trainer(training.StandardUpdater(train_iter, optimizer), (2, 'epoch'))
        >>> trainer.extend(extensions.MicroAverage('main/correct', 'main/total', 'main/accuracy'))
    """

    priority = extension_module.PRIORITY_EDITOR

    def __init__(self, numerator_key: str, denominator_key: str, result_key: str, trigger: Any = (1, "epoch")) -> None:
        self._trigger = training_util.get_trigger(trigger)
        self._numerator_key = numerator_key
        self._denominator_key = denominator_key
        self._result_key = result_key
        self._numerator = 0.0
        self._denominator = 0.0

    def __call__(self, trainer: Any) -> None:
        observation = trainer.observation
        if not (self._numerator_key in observation and self._denominator_key in observation):
            return
        self._numerator += _to_number(observation[self._numerator_key])
        self._denominator += _to_number(observation[self._denominator_key])
        if self._trigger(trainer):
            result = self._numerator / self._denominator
            self._numerator = 0.0
            self._denominator = 0.0
            reporter.report({self._result_key: result})

    def serialize(self, serializer: Any) -> None:
        if hasattr(self._trigger, "serialize"):
            self._trigger.serialize(serializer["trigger"])
        numerator = serializer("_numerator", self._numerator)
        denominator = serializer("_denominator", self._denominator)
        if not _util.is_validating(serializer):
            self._numerator, self._denominator = float(numerator), float(denominator)


__all__ = ["MicroAverage"]
