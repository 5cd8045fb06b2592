"""A trainer whose updater only counts, for tests of trainer extensions."""

from __future__ import annotations

from typing import Any
from unittest import mock


def get_trainer_with_mock_updater(
    stop_trigger: Any = (10, "iteration"), iter_per_epoch: int = 10, extensions: Any = None
) -> Any:
    """Returns a :class:`~chainer.training.Trainer` object with mock updater.

    The updater is a :class:`unittest.mock.Mock` that trains nothing: each
    ``update()`` calls ``update_core()`` (a mock, so tests can count calls or give it a
    side effect) and advances ``iteration``, ``epoch``, ``epoch_detail``,
    ``previous_epoch_detail`` and ``is_new_epoch`` as a real updater with
    ``iter_per_epoch`` iterations per epoch would. ``get_all_optimizers()`` returns
    ``{}``. Extensions see a trainer that runs until ``stop_trigger``.

    Args:
        stop_trigger: When to stop (a trigger or ``(period, unit)``).
        iter_per_epoch: Iterations per epoch.
        extensions: Extensions to register on the trainer.

    Returns:
        The :class:`~chainer.training.Trainer` (``chainer.training`` comes with the
        ``chainer-training`` distribution).
    """
    from chainer import training

    if isinstance(iter_per_epoch, bool) or not isinstance(iter_per_epoch, int) or iter_per_epoch <= 0:
        raise ValueError(
            f"get_trainer_with_mock_updater: iter_per_epoch must be a positive int, got {iter_per_epoch!r}"
        )
    updater = mock.Mock()
    updater.get_all_optimizers.return_value = {}
    updater.iteration = 0
    updater.epoch = 0
    updater.epoch_detail = 0.0
    updater.previous_epoch_detail = None
    updater.is_new_epoch = False

    def update() -> None:
        updater.update_core()
        previous = updater.iteration
        updater.iteration = previous + 1
        updater.previous_epoch_detail = previous / iter_per_epoch
        updater.epoch_detail = updater.iteration / iter_per_epoch
        updater.epoch = updater.iteration // iter_per_epoch
        updater.is_new_epoch = updater.epoch != previous // iter_per_epoch

    updater.update = update
    return training.Trainer(updater, stop_trigger, extensions=extensions or [])


__all__ = ["get_trainer_with_mock_updater"]
