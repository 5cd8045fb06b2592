"""``OnceTrigger``: fires once, at the first call."""

from __future__ import annotations

import warnings
from typing import Any

from chainer.training import _util


class OnceTrigger:
    """Trigger based on the starting point of the iteration.

    It fires at its first call only (the first iteration), and never again, also
    after the training is resumed from a snapshot, unless ``call_on_resume`` is set:
    then it fires once more at the first call after resuming.

    Args:
        call_on_resume: Fire again once after resuming from a snapshot.

    Example:
        >>> from chainer import training
        >>> from chainer.training import extensions
        >>> model = L.Classifier(L.Linear(3, 2))
        >>> optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
        >>> train = chainer.datasets.TupleDataset(np.ones((4, 3), 'f'), np.zeros(4, 'i'))
        >>> train_iter = chainer.iterators.SerialIterator(train, 2)
        >>> trainer = training.Trainer(training.StandardUpdater(train_iter, optimizer), (2, 'epoch'))
        >>> from chainer.training.triggers import OnceTrigger
        >>> def print_model_summary(trainer):
        ...     print(sum(p.size for p in model.params()), 'parameters')
        >>> trainer.extend(print_model_summary, trigger=OnceTrigger())
        >>> trainer.run()
        8 parameters
    """

    def __init__(self, call_on_resume: bool = False) -> None:
        self._flag_first = True
        self._flag_resumed = bool(call_on_resume)

    @property
    def finished(self) -> bool:
        """Whether it will never fire again."""
        return not (self._flag_first or self._flag_resumed)

    def __call__(self, trainer: Any) -> bool:
        fire = not self.finished
        self._flag_first = False
        self._flag_resumed = False
        return fire

    def serialize(self, serializer: Any) -> None:
        """Save or load whether the first call happened (key ``_flag_first``).

        A snapshot without the key (Chainer 7 before v6 saved nothing for this trigger)
        gives a warning and counts as taken after the first call.
        """
        try:
            flag_first = serializer("_flag_first", self._flag_first)
        except KeyError:
            if not _util.is_validating(serializer):
                warnings.warn("OnceTrigger: the snapshot has no _flag_first; the trigger is assumed to have fired")
                self._flag_first = False
            return
        if not _util.is_validating(serializer):
            self._flag_first = bool(flag_first)


__all__ = ["OnceTrigger"]
