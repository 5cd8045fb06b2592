"""``chainer.training.updater``: the public path of :class:`Updater` (defined in
:mod:`chainer.training._updater`, as in Chainer 7)."""

from __future__ import annotations

from typing import Any

from chainer.training._updater import Updater

__all__ = ["Updater"]


def __getattr__(name: str) -> Any:
    # chainer.training.updater.StandardUpdater / ParallelUpdater: the pre-v3 paths.
    if name in ("StandardUpdater", "ParallelUpdater"):
        from chainer.training import updaters

        return getattr(updaters, name)
    raise AttributeError(f"module 'chainer.training.updater' has no attribute {name!r}")
