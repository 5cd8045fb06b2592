"""``LogReport``: accumulates the observations and writes them to a JSON log file."""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Callable
from typing import Any

from chainer import reporter
from chainer.training import _util
from chainer.training import extension as extension_module
from chainer.training import util as training_util


class LogReport(extension_module.Extension):
    """Trainer extension to output the accumulated results to a log file.

    Every iteration it adds the observation (or its ``keys``) to a running mean; when
    ``trigger`` fires, or when it is called before training (registered with
    ``call_before_training=True``), it appends the means, with ``epoch``, ``iteration`` and
    ``elapsed_time``, to :attr:`log` and writes the whole log as a JSON list to
    ``<trainer.out>/<filename>``. The file is replaced atomically (a complete new file is
    moved over the old one), so it is never seen half-written.

    Args:
        keys: The observation keys to log; all if ``None``.
        trigger: When to write an entry: ``(period, unit)`` or a trigger.
        postprocess: Called with each entry (a dict) before it is stored; it may edit
            it.
        filename: The log file name (``'log'``), formatted with the entry's values
            (``'log_{epoch}'`` works); ``None`` also means ``'log'``. (``log_name`` is
            its older keyword name.)

    Example:
        >>> from chainer import training
        >>> from chainer.training import extensions
        >>> model = L.Classifier(L.Linear(3, 2))
        >>> optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
        >>> train = chainer.datasets.TupleDataset(np.ones((4, 3), 'f'), np.zeros(4, 'i'))
        >>> train_iter = chainer.iterators.SerialIterator(train, 2)
        >>> trainer = training.Trainer(training.StandardUpdater(train_iter, optimizer), (2, 'epoch'))
        >>> trainer.extend(extensions.LogReport(trigger=(2, 'iteration')))
        >>> trainer.run()
        >>> [entry['iteration'] for entry in trainer.get_extension('LogReport').log]
        [2, 4]
    """

    def __init__(
        self,
        keys: Any = None,
        trigger: Any = (1, "epoch"),
        postprocess: Callable[[dict[str, Any]], Any] | None = None,
        filename: str | None = None,
        **kwargs: Any,
    ) -> None:
        log_name = kwargs.pop("log_name", "log")
        if kwargs:
            names = ", ".join(repr(k) for k in sorted(kwargs))
            raise TypeError(f"LogReport() got unexpected keyword argument(s) {names}")
        if postprocess is not None and not callable(postprocess):
            raise TypeError(f"LogReport: postprocess must be callable, got {type(postprocess).__name__}")
        self._keys = keys
        self._trigger = training_util.get_trigger(trigger)
        self._postprocess = postprocess
        self._log: list[dict[str, Any]] = []
        self._log_name = log_name if filename is None else filename
        self._init_summary()

    def _init_summary(self) -> None:
        self._summary = reporter.DictSummary()

    def __call__(self, trainer: Any) -> None:
        observation = trainer.observation
        if self._keys is None:
            self._summary.add(observation)
        else:
            self._summary.add({k: observation[k] for k in self._keys if k in observation})
        # Before training (call_before_training=True) an entry is written at once, so
        # that figures of the untrained model are not averaged into the first one.
        if not (trainer.is_before_training or self._trigger(trainer)):
            return
        entry = {name: float(value) for name, value in self._summary.compute_mean().items()}
        updater = trainer.updater
        entry["epoch"] = updater.epoch
        entry["iteration"] = updater.iteration
        entry["elapsed_time"] = trainer.elapsed_time
        if self._postprocess is not None:
            self._postprocess(entry)
        self._log.append(entry)
        if self._log_name is not None:
            path = os.path.join(trainer.out, self._log_name.format(**entry))
            _util.write_text_atomically(path, json.dumps(self._log, indent=4))
        self._init_summary()

    @property
    def log(self) -> list[dict[str, Any]]:
        """The entries written so far (a list of dicts)."""
        return self._log

    def serialize(self, serializer: Any) -> None:
        """Save or load the trigger, the running mean and the log (a JSON string under
        ``_log``, as in Chainer 7)."""
        if hasattr(self._trigger, "serialize"):
            self._trigger.serialize(serializer["_trigger"])
        try:
            self._summary.serialize(serializer["_summary"])
        except KeyError:
            warnings.warn("LogReport: the running statistics were not saved in the snapshot")
        if not _util.is_loading(serializer):
            serializer("_log", json.dumps(self._log))
            return
        log = serializer("_log", "")
        if not _util.is_validating(serializer):
            self._log = json.loads(log) if log else []


__all__ = ["LogReport"]
