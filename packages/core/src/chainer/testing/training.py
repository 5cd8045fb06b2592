"""``get_trainer_with_mock_updater``: a trainer for testing extensions and triggers.

It needs the chainer-training distribution (imported when the function is called).
"""

from __future__ import annotations

from typing import Any


class _MockUpdater:
    """An updater without model or data: each update only advances the counters, as if
    every epoch had ``iter_per_epoch`` iterations."""

    def __init__(self, iter_per_epoch: int) -> None:
        self.iter_per_epoch = iter_per_epoch
        self.iteration = 0

    @property
    def epoch(self) -> int:
        return self.iteration // self.iter_per_epoch

    @property
    def epoch_detail(self) -> float:
        return self.iteration / self.iter_per_epoch

    @property
    def previous_epoch_detail(self) -> float | None:
        return None if self.iteration == 0 else (self.iteration - 1) / self.iter_per_epoch

    @property
    def is_new_epoch(self) -> bool:
        return self.iteration > 0 and self.iteration % self.iter_per_epoch == 0

    def connect_trainer(self, trainer: Any) -> None:
        pass

    def get_optimizer(self, name: str) -> Any:
        raise KeyError(f"the mock updater has no optimizer (asked for {name!r})")

    def get_all_optimizers(self) -> dict[str, Any]:
        return {}

    def update(self) -> None:
        self.iteration += 1

    def finalize(self) -> None:
        pass

    def serialize(self, serializer: Any) -> None:
        self.iteration = int(serializer("iteration", self.iteration))


def get_trainer_with_mock_updater(
    stop_trigger: Any = (10, "iteration"), iter_per_epoch: int = 10, extensions: Any = None
) -> Any:
    """Returns a :class:`~chainer.training.Trainer` object with mock updater.

    The updater has no model, optimizer or data: ``update()`` only advances
    ``iteration`` (and ``epoch``, ``epoch_detail``, ``is_new_epoch``... as if each
    epoch had ``iter_per_epoch`` iterations), which makes extensions and triggers cheap
    to test. Set ``trainer.out`` before ``run()`` if an extension writes files (the
    default is ``'result'``).

    Args:
        stop_trigger: The stop trigger of the trainer.
        iter_per_epoch: Iterations per epoch.
        extensions: Extensions to add.

    Example:
        >>> trainer = testing.get_trainer_with_mock_updater((5, 'iteration'))
        >>> trainer.run()
        >>> trainer.updater.iteration
        5
    """
    from chainer import training

    if isinstance(iter_per_epoch, bool) or not isinstance(iter_per_epoch, int) or iter_per_epoch < 1:
        raise ValueError(
            f"get_trainer_with_mock_updater: iter_per_epoch must be a positive int, got {iter_per_epoch!r}"
        )
    return training.Trainer(_MockUpdater(iter_per_epoch), stop_trigger, extensions=extensions)


__all__ = ["get_trainer_with_mock_updater"]
