"""``chainer.training.util``, the module where Chainer 7.8.1 defined ``get_trigger``.

The code lives in :mod:`chainer.training.trigger`; this module is the same function under
7.8.1's path (``from chainer.training import util; util.get_trigger(...)``).
"""

from chainer.training.trigger import _never_fire_trigger, get_trigger

__all__ = ["_never_fire_trigger", "get_trigger"]
