"""ObservationAggregator: an observed value aggregated over the processes."""

from __future__ import annotations

from typing import Any

import numpy

import chainer
from chainer.training import extension as extension_module
from chainer.training import trigger as trigger_module
from chainermn.communicators import _communication_utility


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
        values = [v for v in _communication_utility.allgather_obj(self.comm, local) if v is not None]
        return self.aggregator(values) if values else None

    def serialize(self, serializer: Any) -> None:
        if hasattr(self.comm_trigger, "serialize"):
            self.comm_trigger.serialize(serializer["comm_trigger"])


def _mean(values: list[Any]) -> Any:
    return numpy.mean(numpy.asarray(values, dtype=numpy.float64), axis=0)


__all__ = ["ObservationAggregator"]
