"""``unchain_variables``: releases the graphs of the reported variables."""

from __future__ import annotations

from typing import Any

from chainer import variable
from chainer.training import extension as extension_module


class unchain_variables(extension_module.Extension):
    """Trainer extension to unchain all computational graphs.

    After each iteration it calls ``unchain_backward()`` on every
    :class:`~chainer.Variable` of the observation, so that graphs kept alive by
    reported values (with ``chainer.config.keep_graph_on_report``, e.g. for DumpGraph)
    release their memory. It runs after the other extensions of the iteration
    (snapshots excepted).

    Example:
        >>> from chainer import training
        >>> from chainer.training import extensions
        >>> model = L.Classifier(L.Linear(3, 2))
        >>> optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
        >>> train = chainer.datasets.TupleDataset(np.ones((4, 3), 'f'), np.zeros(4, 'i'))
        >>> train_iter = chainer.iterators.SerialIterator(train, 2)
        >>> trainer = training.Trainer(training.StandardUpdater(train_iter, optimizer), (2, 'epoch'))
        >>> trainer.extend(extensions.unchain_variables())
        >>> trainer.run()
    """

    trigger: Any = 1, "iteration"
    priority = -1

    def __init__(self) -> None:
        pass

    def initialize(self, trainer: Any) -> None:
        pass

    def __call__(self, trainer: Any) -> None:
        for value in trainer.observation.values():
            if isinstance(value, variable.Variable):
                value.unchain_backward()


__all__ = ["unchain_variables"]
