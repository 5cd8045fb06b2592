"""``observe_value`` and ``observe_lr``: report a value computed from the trainer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chainer import reporter
from chainer.training import extension as extension_module


def observe_value(observation_key: str, target_func: Callable[[Any], Any]) -> Callable[[Any], None]:
    """Returns a trainer extension to continuously record a value.

    The extension reports ``{observation_key: target_func(trainer)}`` when called
    (every epoch by default), so LogReport and PrintReport can show it.

    Args:
        observation_key: The key of the value.
        target_func: ``target_func(trainer)`` returns the value.

    Example:
        >>> from chainer import training
        >>> from chainer.training import extensions
        >>> model = L.Classifier(L.Linear(3, 2))
        >>> optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
        >>> train = chainer.datasets.TupleDataset(np.ones((4, 3), 'f'), np.zeros(4, 'i'))
        >>> train_iter = chainer.iterators.SerialIterator(train, 2)
        >>> trainer = training.Trainer(training.StandardUpdater(train_iter, optimizer), (2, 'epoch'))
        >>> trainer.extend(extensions.observe_value(
        ...     'lr', lambda trainer: trainer.updater.get_optimizer('main').lr))
        >>> trainer.extend(extensions.LogReport())
        >>> trainer.run()
        >>> [entry['lr'] for entry in trainer.get_extension('LogReport').log]
        [0.1, 0.1]
    """
    if not callable(target_func):
        raise TypeError(f"observe_value: target_func must be callable, got {type(target_func).__name__}")

    @extension_module.make_extension(trigger=(1, "epoch"), priority=extension_module.PRIORITY_WRITER)
    def _observe_value(trainer: Any) -> None:
        reporter.report({observation_key: target_func(trainer)})

    return _observe_value


def observe_lr(optimizer_name: str = "main", observation_key: str = "lr") -> Callable[[Any], None]:
    """Returns a trainer extension to record the learning rate.

    Args:
        optimizer_name: The name of the optimizer in the updater.
        observation_key: The key of the value.

    Example:
        >>> from chainer import training
        >>> from chainer.training import extensions
        >>> model = L.Classifier(L.Linear(3, 2))
        >>> optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
        >>> train = chainer.datasets.TupleDataset(np.ones((4, 3), 'f'), np.zeros(4, 'i'))
        >>> train_iter = chainer.iterators.SerialIterator(train, 2)
        >>> trainer = training.Trainer(training.StandardUpdater(train_iter, optimizer), (2, 'epoch'))
        >>> trainer.extend(extensions.observe_lr())  # reports 'lr' every epoch
    """
    return observe_value(observation_key, lambda trainer: trainer.updater.get_optimizer(optimizer_name).lr)


__all__ = ["observe_lr", "observe_value"]
