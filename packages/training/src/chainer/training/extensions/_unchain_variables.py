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
        >>> trainer.extend(extensions.unchain_variables())
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
