"""Aggregating observations over the processes: ObservationAggregator,
AllreducePersistent and MultiNodeEarlyStoppingTrigger."""

from __future__ import annotations

from typing import Any

import numpy

import chainer
from chainer.training import extension as extension_module
from chainer.training import trigger as trigger_module
from chainer.training.triggers import early_stopping_trigger


def _allgather_obj(comm: Any, obj: Any) -> list[Any]:
    return comm.bcast_obj(comm.gather_obj(obj, root=0), root=0)


class AllreducePersistent(extension_module.Extension):
    """Average the floating-point persistent values of a model over the processes.

    Mainly for the running statistics of batch normalization; call it before saving or
    evaluating the model. Integer persistents (counters) are left alone.

    Args:
        model: The link whose persistents to average.
        comm: ChainerMN communicator.
    """

    trigger = 1, "epoch"
    # Before the evaluators (PRIORITY_WRITER) read the model.
    priority = extension_module.PRIORITY_WRITER + 1

    def __init__(self, model: Any, comm: Any) -> None:
        self.model = model
        self.comm = comm

    def __call__(self, trainer: Any = None) -> None:
        for _path, link in sorted(self.model.namedlinks(), key=lambda item: item[0]):
            for name in sorted(link._persistent):
                value = getattr(link, name)
                array = chainer.as_array(value) if isinstance(value, chainer.Variable) else value
                if isinstance(array, float):
                    setattr(link, name, float(self.comm.allreduce_obj(array)) / self.comm.size)
                elif hasattr(array, "dtype") and array.dtype.kind == "f":
                    mean = self.comm.allreduce(array) / self.comm.size
                    array[...] = mean.astype(array.dtype, copy=False)


class ObservationAggregator(extension_module.Extension):
    """Aggregate an observed value over the processes.

    Every iteration, this process's ``trainer.observation[original_key]`` is recorded;
    when ``comm_trigger`` fires, each process's mean over the interval is exchanged and
    ``aggregator(list of per-process means)`` (default: their mean) is written to
    ``trainer.observation[aggregated_key]`` on every process.

    Args:
        comm: ChainerMN communicator.
        original_key: The key to aggregate (e.g. ``'main/loss'``).
        aggregated_key: Where to write the result (default: ``original_key``).
        comm_trigger: When to communicate.
        aggregator: Callable taking the list of per-process values (processes that saw
            no value are left out).
    """

    trigger = 1, "iteration"
    priority = extension_module.PRIORITY_EDITOR

    def __init__(
        self,
        comm: Any,
        original_key: str,
        aggregated_key: str | None = None,
        *,
        comm_trigger: Any = (1, "iteration"),
        aggregator: Any = None,
    ) -> None:
        if not isinstance(original_key, str):
            raise TypeError(f"ObservationAggregator: original_key must be a str, got {type(original_key).__name__}")
        if aggregator is not None and not callable(aggregator):
            raise TypeError(f"ObservationAggregator: aggregator must be callable, got {type(aggregator).__name__}")
        self.comm = comm
        self.original_key = original_key
        self.aggregated_key = original_key if aggregated_key is None else aggregated_key
        self.comm_trigger = trigger_module.get_trigger(comm_trigger)
        self.aggregator = aggregator or _mean
        self._observations: list[Any] = []

    def __call__(self, trainer: Any) -> None:
        value = trainer.observation.get(self.original_key)
        if value is not None:
            self._observations.append(chainer.as_array(value))
        if self.comm_trigger(trainer):
            aggregated = self.compute_summary()
            if aggregated is not None:
                trainer.observation[self.aggregated_key] = aggregated

    def compute_summary(self) -> Any:
        """Exchange the values recorded since the last call and return the aggregate
        (``None`` if no process saw a value). Collective."""
        local = None
        if self._observations:
            local = numpy.mean(
                numpy.asarray([numpy.asarray(v, dtype=numpy.float64) for v in self._observations]), axis=0
            )
        self._observations = []
        values = [v for v in _allgather_obj(self.comm, local) if v is not None]
        return self.aggregator(values) if values else None

    def serialize(self, serializer: Any) -> None:
        if hasattr(self.comm_trigger, "serialize"):
            self.comm_trigger.serialize(serializer["comm_trigger"])


def _mean(values: list[Any]) -> Any:
    return numpy.mean(numpy.asarray(values, dtype=numpy.float64), axis=0)


class MultiNodeEarlyStoppingTrigger:
    """Early stopping on a value averaged over the processes.

    Works like :class:`chainer.training.triggers.EarlyStoppingTrigger` on
    ``monitor + suffix``: whenever ``check_trigger`` fires, the processes exchange their
    means of ``monitor`` since the previous check, so that all of them take the same
    decision.

    Args:
        comm: ChainerMN communicator.
        check_trigger: When to check.
        monitor: The observed key to watch.
        patience: Number of checks without improvement before stopping (default 3).
        mode: ``'max'``, ``'min'`` or ``'auto'``.
        verbose: Print a message when stopping.
        max_trigger: Stop at the latest here.
        suffix: Appended to ``monitor`` for the aggregated key.
    """

    def __init__(
        self,
        comm: Any,
        *,
        check_trigger: Any = (1, "epoch"),
        monitor: str = "main/loss",
        patience: int | None = None,
        mode: str = "auto",
        verbose: bool = False,
        max_trigger: Any = (100, "epoch"),
        suffix: str = "_aggregated",
        **kwargs: Any,
    ) -> None:
        self.comm = comm
        self.monitor = monitor
        self.aggregated_key = monitor + suffix
        self._aggregator = ObservationAggregator(comm, monitor, self.aggregated_key, comm_trigger=check_trigger)
        self._trigger = early_stopping_trigger.EarlyStoppingTrigger(
            check_trigger=check_trigger,
            monitor=self.aggregated_key,
            patience=patience,
            mode=mode,
            verbose=verbose,
            max_trigger=max_trigger,
            **kwargs,
        )

    def __call__(self, trainer: Any) -> bool:
        self._aggregator(trainer)
        return self._trigger(trainer)

    def get_training_length(self) -> Any:
        return self._trigger.get_training_length()

    def serialize(self, serializer: Any) -> None:
        self._aggregator.serialize(serializer["aggregator"])
        if hasattr(self._trigger, "serialize"):
            self._trigger.serialize(serializer["trigger"])


__all__ = ["AllreducePersistent", "MultiNodeEarlyStoppingTrigger", "ObservationAggregator"]
