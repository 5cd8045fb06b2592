"""Training tools: the :class:`Trainer` loop, updaters, extensions and triggers.

This is the ``chainer-training`` distribution. Typical use::

    from chainer import training
    from chainer.training import extensions

    updater = training.StandardUpdater(train_iter, optimizer, device=-1)
    trainer = training.Trainer(updater, (20, 'epoch'), out='result')
    trainer.extend(extensions.Evaluator(test_iter, model))
    trainer.extend(extensions.LogReport())
    trainer.run()
"""

# chainer.training.extensions is imported here too (as in Chainer 7), after the names
# above: extensions import chainer.training.extension and the triggers.
from chainer.training import (
    _updater,
    extension,
    extensions,
    trainer,
    trigger,
    triggers,
    updater,
    updaters,
    util,
)
from chainer.training._updater import Updater
from chainer.training._version import __version__
from chainer.training.extension import (
    PRIORITY_EDITOR,
    PRIORITY_READER,
    PRIORITY_SNAPSHOT,
    PRIORITY_WRITER,
    Extension,
    make_extension,
)
from chainer.training.trainer import Trainer
from chainer.training.updaters import MultiprocessParallelUpdater, ParallelUpdater, StandardUpdater
from chainer.training.util import get_trigger

__all__ = [
    "PRIORITY_EDITOR",
    "PRIORITY_READER",
    "PRIORITY_SNAPSHOT",
    "PRIORITY_WRITER",
    "Extension",
    "MultiprocessParallelUpdater",
    "ParallelUpdater",
    "StandardUpdater",
    "Trainer",
    "Updater",
    "extensions",
    "get_trigger",
    "make_extension",
    "triggers",
    "updaters",
]
