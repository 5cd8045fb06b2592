"""``get_trainer_with_mock_updater``: a trainer for testing extensions and triggers.

It needs the chainer-training distribution (imported when the function is called).
"""

from __future__ import annotations

import numbers
from typing import Any
from unittest import mock


def _import_error() -> ImportError | None:
    try:
        import chainer.training  # noqa: F401
    except ImportError as exc:
        return exc
    return None


def is_available() -> bool:
    """Whether chainer.training (the chainer-training distribution), which
    :func:`get_trainer_with_mock_updater` needs, can be imported."""
    return _import_error() is None


def get_error() -> ImportError | None:
    """The error importing chainer.training raised, or ``None``."""
    return _import_error()


def check_available() -> None:
    """Raise a RuntimeError that says how to install chainer.training unless it can be
    imported."""
    error = _import_error()
    if error is not None:
        raise RuntimeError(
            "chainer.testing.get_trainer_with_mock_updater needs chainer.training, which could not be imported "
            f"(install the chainer-training distribution): {error}"
        )


def _mock_updater(iter_per_epoch: float) -> mock.Mock:
    """A :class:`unittest.mock.Mock` updater whose counters move as a real updater's do.

    Being a mock, it answers any method a test or an extension calls
    (``get_optimizer('main')`` gives a mock unless the test sets its
    ``return_value``), and records the calls (``update_core.call_count``).
    """
    updater = mock.Mock()
    updater.get_all_optimizers.return_value = {}
    updater.iteration = 0
    updater.epoch = 0
    updater.epoch_detail = 0
    updater.previous_epoch_detail = None
    updater.is_new_epoch = False

    def set_iteration(iteration: int) -> None:
        updater.iteration = iteration
        updater.epoch = iteration // iter_per_epoch
        updater.epoch_detail = iteration / iter_per_epoch
        updater.previous_epoch_detail = None if iteration == 0 else (iteration - 1) / iter_per_epoch
        # An epoch may be shorter than one iteration (iter_per_epoch=0.5): a new epoch
        # starts in every iteration whose epoch count differs from the previous one's.
        updater.is_new_epoch = iteration > 0 and (iteration - 1) // iter_per_epoch != iteration // iter_per_epoch

    def update() -> None:
        updater.update_core()
        set_iteration(updater.iteration + 1)

    def serialize(serializer: Any) -> None:
        # A snapshot of the trainer stores the iteration; resuming restores it.
        set_iteration(int(serializer("iteration", updater.iteration)))

    updater.update = update
    updater.serialize = serialize
    return updater


def get_trainer_with_mock_updater(
    stop_trigger: Any = (10, "iteration"), iter_per_epoch: float = 10, extensions: Any = None
) -> Any:
    """Returns a :class:`~chainer.training.Trainer` object with mock updater.

    The updater has no model, optimizer or data: ``update()`` calls the mock
    ``update_core()`` and advances ``iteration`` (and ``epoch``, ``epoch_detail``,
    ``previous_epoch_detail``, ``is_new_epoch`` as if each epoch had
    ``iter_per_epoch`` iterations), which makes extensions and triggers cheap to
    test. It is a :class:`unittest.mock.Mock`, as in Chainer 7: a test can give it an
    optimizer with ``trainer.updater.get_optimizer.return_value = optimizer``.
    ``get_all_optimizers()`` returns ``{}``. Set ``trainer.out`` before ``run()`` if an
    extension writes files (the default is ``'result'``).

    Args:
        stop_trigger: The stop trigger of the trainer.
        iter_per_epoch: Iterations per epoch, a positive number (``2.5`` or ``0.5``
            make epochs that end within an iteration).
        extensions: Extensions to add.

    Example:
        >>> from chainer import testing
        >>> trainer = testing.get_trainer_with_mock_updater((5, 'iteration'))
        >>> trainer.run()
        >>> trainer.updater.iteration
        5
    """
    from chainer import training

    if isinstance(iter_per_epoch, bool) or not isinstance(iter_per_epoch, numbers.Real) or not iter_per_epoch > 0:
        raise ValueError(
            f"get_trainer_with_mock_updater: iter_per_epoch must be a positive number, got {iter_per_epoch!r}"
        )
    return training.Trainer(_mock_updater(iter_per_epoch), stop_trigger, extensions=extensions)


__all__ = ["check_available", "get_error", "get_trainer_with_mock_updater", "is_available"]
