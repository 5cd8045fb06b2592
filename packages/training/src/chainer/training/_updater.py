"""``Updater``: the interface of the objects that update parameters for a trainer
(re-exported by :mod:`chainer.training.updater`, its public path)."""

from __future__ import annotations

from typing import Any


class Updater:
    """Interface of updater objects for trainers.

    An updater owns the iterators and optimizers of a training run; at each call of
    :meth:`update` it processes one mini-batch. The trainer reads ``iteration``,
    ``epoch``, ``epoch_detail``, ``previous_epoch_detail`` and ``is_new_epoch`` from it
    (see :class:`~chainer.training.updaters.StandardUpdater`).
    """

    def connect_trainer(self, trainer: Any) -> None:
        """Called by the trainer that uses this updater (nothing by default)."""

    def finalize(self) -> None:
        """Release resources at the end of training (nothing by default)."""

    def get_optimizer(self, name: str) -> Any:
        """Return the optimizer of the given name; a subclass must implement it."""
        raise NotImplementedError(f"{type(self).__name__} must implement get_optimizer(name)")

    def get_all_optimizers(self) -> dict[str, Any]:
        """Return ``{name: optimizer}``; a subclass must implement it."""
        raise NotImplementedError(f"{type(self).__name__} must implement get_all_optimizers()")

    def update(self) -> None:
        """Process one mini-batch; a subclass must implement it."""
        raise NotImplementedError(f"{type(self).__name__} must implement update()")

    def serialize(self, serializer: Any) -> None:
        """Save or load the state; a subclass must implement it."""
        raise NotImplementedError(f"{type(self).__name__} must implement serialize(serializer)")


__all__ = ["Updater"]
