"""multi_node_snapshot: snapshots of a multi-process job, written once per replica set."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy

from chainer.training import extension as extension_module
from chainermn.communicators import _communication_utility


def _parse_replica_sets(replica_sets: Any, size: int) -> list[frozenset[int]]:
    """The replica sets as sets of ranks: each item of ``replica_sets`` (a rank or an
    iterable of ranks) is one set, and the ranks not listed form one more set."""
    where = "multi_node_snapshot"
    if not isinstance(replica_sets, Iterable) or isinstance(replica_sets, (str, bytes)):
        raise TypeError(f"{where}: replica_sets must be a list of ranks or of iterables of ranks, got {replica_sets!r}")
    sets: list[frozenset[int]] = []
    seen: set[int] = set()
    for item in replica_sets:
        ranks = frozenset([item] if isinstance(item, (int, numpy.integer)) else item)
        bad = [r for r in ranks if not isinstance(r, (int, numpy.integer)) or not 0 <= r < size]
        if bad or not ranks:
            raise ValueError(f"{where}: a replica set must hold ranks in [0, {size}), got {sorted(ranks, key=str)}")
        if ranks & seen:
            raise ValueError(f"{where}: ranks {sorted(ranks & seen)} belong to two replica sets")
        seen |= ranks
        sets.append(ranks)
    rest = frozenset(range(size)) - seen
    if rest:
        sets.append(rest)
    return sets


class _MultiNodeSnapshot(extension_module.Extension):
    """Only the lowest rank of each replica set writes; every process autoloads the
    snapshot of its set's writer."""

    def __init__(self, comm: Any, snapshot: Any, replica_sets: Any) -> None:
        self.comm = comm
        self.snapshot = snapshot
        sets = _parse_replica_sets(replica_sets, comm.size)
        mine = next(s for s in sets if comm.rank in s)
        self.master = min(mine)
        self.is_master = comm.rank == self.master
        # Each replica set gets its own files in a shared output directory: the name
        # ends with ".<rank of the writer>", as in Chainer 7.8.1.
        if isinstance(snapshot.filename, str):
            snapshot.filename = f"{snapshot.filename}.{self.master}"
        elif callable(snapshot.filename):
            name_of, suffix = snapshot.filename, f".{self.master}"
            snapshot.filename = lambda trainer: f"{name_of(trainer)}{suffix}"
        self.trigger = getattr(snapshot, "trigger", (1, "epoch"))
        self.priority = getattr(snapshot, "priority", extension_module.PRIORITY_SNAPSHOT)
        self._restores_trainer_state = getattr(snapshot, "_restores_trainer_state", False)

    def initialize(self, trainer: Any) -> None:
        # Collective: no process may start training (and its set's writer write a new
        # snapshot) before every process has autoloaded, or a slow process would resume
        # from a snapshot of this very run. A failed load raises on every process, which
        # would otherwise wait in their first collective for it.
        error = None
        try:
            self.snapshot.initialize(trainer)
        except Exception as exc:
            error = exc
        reports = _communication_utility.allgather_obj(
            self.comm, None if error is None else f"{type(error).__name__}: {error}"
        )
        if error is not None:
            raise error
        failed = [f"rank {r}: {message}" for r, message in enumerate(reports) if message is not None]
        if failed:
            raise RuntimeError("multi_node_snapshot: resuming failed on another process: " + "; ".join(failed))

    def __call__(self, trainer: Any) -> None:
        if self.is_master:
            self.snapshot(trainer)

    def on_error(self, trainer: Any, exc: BaseException, tb: Any) -> None:
        if self.is_master and hasattr(self.snapshot, "on_error"):
            self.snapshot.on_error(trainer, exc, tb)

    def finalize(self, trainer: Any = None) -> None:
        if self.is_master:
            self.snapshot.finalize(trainer)


def multi_node_snapshot(comm: Any, snapshot: Any, replica_sets: Any) -> Any:
    """Create trainer extension for multi-node snapshots.

    ``replica_sets`` groups the processes whose snapshot targets are identical; each item
    is a rank or an iterable of ranks, and the ranks not listed form one more set
    (``[0]`` on 4 processes means ``[{0}, {1, 2, 3}]``). Only the lowest rank of each set
    writes, to files whose name ends with ``.<that rank>``; with ``autoload``,
    every process resumes from its set's latest file, also after a restart with another
    number of processes.

    Args:
        comm: ChainerMN communicator.
        snapshot: A snapshot extension (:func:`chainer.training.extensions.snapshot`).
        replica_sets: The replica sets.

    Returns:
        The extension.

    Example:
        >>> trainer.extend(multi_node_snapshot(comm, extensions.snapshot(), [0]), trigger=(1, "epoch"))  # doctest: +SKIP
    """
    if not hasattr(snapshot, "filename") or not callable(snapshot):
        raise TypeError(f"multi_node_snapshot: snapshot must be a snapshot extension, got {type(snapshot).__name__}")
    return _MultiNodeSnapshot(comm, snapshot, replica_sets)


__all__ = ["multi_node_snapshot"]
