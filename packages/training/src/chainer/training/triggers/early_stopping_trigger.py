"""``EarlyStoppingTrigger``: stops training when a monitored value stops improving."""

from __future__ import annotations

import math
import operator
import warnings
from typing import Any

from chainer import reporter
from chainer.training import _util
from chainer.training import util as training_util


class EarlyStoppingTrigger:
    """Trigger for early stopping, to be used as the trainer's stop trigger.

    At every ``check_trigger`` interval, the mean of ``observation[monitor]`` over the
    interval is compared with the best mean so far. After ``patience`` checks in a row
    without improvement, it fires (training stops); it also fires when ``max_trigger``
    does.

    Args:
        check_trigger: When to compare: ``(period, unit)`` or a trigger.
        monitor: The observation key to watch.
        patience: How many checks without improvement are tolerated (3 if ``None``).
        mode: ``'max'``, ``'min'``, or ``'auto'`` (``'max'`` if the key contains
            ``'accuracy'``, else ``'min'``).
        verbose: Print the comparison chosen (``early stopping: operator is less`` or
            ``greater``) when created, and a message when stopping early.
        max_trigger: Stop at the latest at this point: ``(length, unit)`` or a trigger.

    Example:
        >>> from chainer import training
        >>> from chainer.training import extensions
        >>> model = L.Classifier(L.Linear(3, 2))
        >>> optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
        >>> train = chainer.datasets.TupleDataset(np.ones((4, 3), 'f'), np.zeros(4, 'i'))
        >>> train_iter = chainer.iterators.SerialIterator(train, 2)
        >>> from chainer.training.triggers import EarlyStoppingTrigger
        >>> stop = EarlyStoppingTrigger(monitor='validation/main/accuracy', patience=2,
        ...                             max_trigger=(100, 'epoch'))
        >>> trainer = training.Trainer(training.StandardUpdater(train_iter, optimizer), stop)
        >>> test_iter = chainer.iterators.SerialIterator(train, 2, repeat=False, shuffle=False)
        >>> trainer.extend(extensions.Evaluator(test_iter, model))
        >>> trainer.run()
        >>> trainer.updater.epoch < 100  # the accuracy stopped improving
        True
    """

    def __init__(
        self,
        check_trigger: Any = (1, "epoch"),
        monitor: str = "main/loss",
        patience: int | None = None,
        mode: str = "auto",
        verbose: bool = False,
        max_trigger: Any = (100, "epoch"),
        **kwargs: Any,
    ) -> None:
        patients = kwargs.pop("patients", None)
        if kwargs:
            names = ", ".join(repr(k) for k in sorted(kwargs))
            raise TypeError(f"EarlyStoppingTrigger() got unexpected keyword argument(s) {names}")
        if patience is not None and patients is not None:
            raise TypeError("EarlyStoppingTrigger: give patience only (patients is its old misspelled name)")
        if patience is None:
            patience = 3 if patients is None else patients
        if isinstance(patience, bool) or not isinstance(patience, int) or patience < 1:
            raise ValueError(f"EarlyStoppingTrigger: patience must be a positive int, got {patience!r}")
        if not isinstance(monitor, str):
            raise TypeError(f"EarlyStoppingTrigger: monitor must be a str, got {type(monitor).__name__}")
        if mode == "auto":
            mode = "max" if "accuracy" in monitor else "min"
        if mode == "max":
            self._compare, self.best = operator.gt, -math.inf
        elif mode == "min":
            self._compare, self.best = operator.lt, math.inf
        else:
            raise ValueError(f"EarlyStoppingTrigger: mode must be 'auto', 'max' or 'min', got {mode!r}")
        if verbose:
            print(f"early stopping: operator is {'greater' if mode == 'max' else 'less'}")
        self.count = 0
        self.patience = patience
        self.monitor = monitor
        self.verbose = verbose
        self.already_warning = False
        self._max_trigger = training_util.get_trigger(max_trigger)
        self._interval_trigger = training_util.get_trigger(check_trigger)
        self._init_summary()

    def _init_summary(self) -> None:
        self._summary = reporter.DictSummary()

    def __call__(self, trainer: Any) -> bool:
        """Return ``True`` when training should stop."""
        observation = trainer.observation
        if self.monitor in observation:
            self._summary.add({self.monitor: observation[self.monitor]})
        if self._max_trigger(trainer):
            return True
        if not self._interval_trigger(trainer):
            return False
        if self.monitor not in observation:
            if not self.already_warning:
                warnings.warn(f"EarlyStoppingTrigger: {self.monitor!r} is not in the observation")
                self.already_warning = True
            return False
        current = float(self._summary.compute_mean()[self.monitor])
        self._init_summary()
        if self._compare(current, self.best):
            self.best = current
            self.count = 0
        else:
            self.count += 1
        if self._stop_condition():
            if self.verbose:
                print(f"Epoch {trainer.updater.epoch}: early stopping")
            return True
        return False

    def _stop_condition(self) -> bool:
        return self.count >= self.patience

    def get_training_length(self) -> Any:
        """The length of ``max_trigger`` (for ``ProgressBar``)."""
        return self._max_trigger.get_training_length()

    def serialize(self, serializer: Any) -> None:
        """Save or load the triggers, the running mean, the best value and the count
        (not in Chainer 7, whose resumed runs forgot them)."""
        try:
            count = serializer("count", self.count)
        except KeyError:
            # A snapshot of Chainer 7, which did not save this trigger: keep the state.
            return
        best = serializer("best", self.best)
        for name, trig in (("max_trigger", self._max_trigger), ("interval_trigger", self._interval_trigger)):
            if hasattr(trig, "serialize"):
                trig.serialize(serializer[name])
        self._summary.serialize(serializer["summary"])
        if not _util.is_validating(serializer):
            self.best, self.count = float(best), int(count)


__all__ = ["EarlyStoppingTrigger"]
