"""MultiNodeEarlyStoppingTrigger: early stopping on a value averaged over the processes."""

from __future__ import annotations

from typing import Any

from chainer.training.triggers import early_stopping_trigger
from chainermn.extensions import observation_aggregator


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
        self._aggregator = observation_aggregator.ObservationAggregator(
            comm, monitor, self.aggregated_key, comm_trigger=check_trigger
        )
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


__all__ = ["MultiNodeEarlyStoppingTrigger"]
