"""Snapshots for multi-process jobs: multi_node_snapshot and the checkpointer."""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterable
from typing import Any

from chainer import serializers
from chainer.training import extension as extension_module


def _allgather_obj(comm: Any, obj: Any) -> list[Any]:
    return comm.bcast_obj(comm.gather_obj(obj, root=0), root=0)


def _replica_sets(replica_sets: Any, size: int) -> list[frozenset[int]]:
    where = "multi_node_snapshot"
    if not isinstance(replica_sets, Iterable) or isinstance(replica_sets, (str, bytes)):
        raise TypeError(f"{where}: replica_sets must be a list of ranks or of iterables of ranks, got {replica_sets!r}")
    sets: list[frozenset[int]] = []
    seen: set[int] = set()
    for item in replica_sets:
        ranks = frozenset([item] if isinstance(item, int) else item)
        bad = [r for r in ranks if not isinstance(r, int) or not 0 <= r < size]
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
        sets = _replica_sets(replica_sets, comm.size)
        mine = next(s for s in sets if comm.rank in s)
        self.master = min(mine)
        self.is_master = comm.rank == self.master
        # Each replica set gets its own files in a shared output directory.
        if isinstance(snapshot.filename, str):
            snapshot.filename = f"{snapshot.filename}_replica{self.master}"
        elif callable(snapshot.filename):
            name_of, suffix = snapshot.filename, f"_replica{self.master}"
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
        reports = _allgather_obj(self.comm, None if error is None else f"{type(error).__name__}: {error}")
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
    writes, to files whose name ends with ``_replica<that rank>``; with ``autoload``,
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


class _MultiNodeCheckpointer(extension_module.Extension):
    """Generational checkpoints ``<name>.<rank>.<iteration>`` (see
    :func:`create_multi_node_checkpointer`)."""

    trigger = 1, "epoch"
    priority = extension_module.PRIORITY_SNAPSHOT

    def __init__(self, name: str, comm: Any, cp_interval: int, gc_interval: int, path: str | None) -> None:
        where = "create_multi_node_checkpointer"
        if not isinstance(name, str) or not name or os.sep in name:
            raise ValueError(f"{where}: name must be a non-empty file name, got {name!r}")
        for arg, value in (("cp_interval", cp_interval), ("gc_interval", gc_interval)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{where}: {arg} must be a positive int, got {value!r}")
        self.name = name
        self.comm = comm
        self.cp_interval = cp_interval
        self.gc_interval = gc_interval
        self.path = path
        self._saves = 0
        self._failed = False
        self._pattern = re.compile(rf"^{re.escape(name)}\.{comm.rank}\.(\d+)$")

    def _dir(self, trainer: Any = None) -> str:
        if self.path is not None:
            return self.path
        return getattr(trainer, "out", None) or os.getcwd()

    def _files(self, directory: str) -> dict[int, str]:
        if not os.path.isdir(directory):
            return {}
        found = {}
        for entry in os.listdir(directory):
            match = self._pattern.match(entry)
            if match:
                found[int(match.group(1))] = os.path.join(directory, entry)
        return found

    def __call__(self, trainer: Any) -> None:
        self.save(trainer, trainer.updater.iteration)

    def save(self, target: Any, iteration: int | None = None) -> None:
        """Write a checkpoint of ``target`` (atomically) and collect old ones."""
        if iteration is None:
            updater = getattr(target, "updater", None)
            iteration = updater.iteration if updater is not None else self._saves + 1
        directory = self._dir(target)
        os.makedirs(directory, exist_ok=True)
        final = os.path.join(directory, f"{self.name}.{self.comm.rank}.{iteration}")
        fd, tmp = tempfile.mkstemp(prefix=f".{self.name}.{self.comm.rank}.", suffix=".tmp", dir=directory)
        os.close(fd)
        try:
            serializers.save_npz(tmp, target)
            os.replace(tmp, final)
        except BaseException:
            if os.path.exists(tmp):
                os.remove(tmp)
            raise
        self._saves += 1
        if self._saves % self.gc_interval == 0:
            self._collect(directory)

    def _collect(self, directory: str) -> None:
        files = self._files(directory)
        for iteration in sorted(files)[: -self.cp_interval]:
            try:
                os.remove(files[iteration])
            except FileNotFoundError:
                pass

    def maybe_load(self, trainer: Any, optimizer: Any = None, path: str | None = None) -> None:
        """Resume from the latest iteration that every process has a checkpoint of.

        Collective. Leaves ``trainer`` unchanged when there is none. With ``optimizer``
        (a multi-node optimizer), its first update does not broadcast rank 0's
        parameters again, since all processes loaded their own consistent state.
        """
        directory = path if path is not None else self._dir(trainer)
        mine = set(self._files(directory))
        common = set.intersection(*[set(s) for s in _allgather_obj(self.comm, sorted(mine))])
        if not common:
            return
        latest = max(common)
        serializers.load_npz(self._files(directory)[latest], trainer)
        mark = getattr(optimizer, "_mark_synchronized", None)
        if mark is not None:
            mark()

    def on_error(self, trainer: Any, exc: BaseException, tb: Any) -> None:
        self._failed = True

    def finalize(self, trainer: Any = None) -> None:
        """After a run without error, remove this process's checkpoints."""
        if self._failed:
            return
        for file in self._files(self._dir(trainer)).values():
            try:
                os.remove(file)
            except FileNotFoundError:
                pass


def create_multi_node_checkpointer(
    name: str, comm: Any, cp_interval: int = 5, gc_interval: int = 5, path: str | None = None
) -> Any:
    """Create multi-node checkpointer object.

    Each process writes its own checkpoints ``<name>.<rank>.<iteration>`` (atomically:
    a temporary file renamed into place) into ``path`` (default: the trainer's ``out``).
    Every ``gc_interval`` saves, all but the newest ``cp_interval`` are removed. Call
    ``checkpointer.maybe_load(trainer, optimizer)`` before ``trainer.run()`` to resume
    from the newest iteration that every process has. After a run without error the
    checkpoints are removed.

    .. deprecated:: v7
        Use :func:`chainermn.extensions.multi_node_snapshot`.

    Args:
        name: Identifier of the run.
        comm: ChainerMN communicator.
        cp_interval: Number of checkpoints kept.
        gc_interval: Number of saves between removals of old checkpoints.
        path: Directory of the checkpoints.

    Returns:
        The checkpointer extension.

    Example:
        >>> checkpointer = create_multi_node_checkpointer(name="run1", comm=comm)  # doctest: +SKIP
        >>> trainer.extend(checkpointer, trigger=(25, "iteration"))  # doctest: +SKIP
        >>> checkpointer.maybe_load(trainer, optimizer)  # doctest: +SKIP
    """
    return _MultiNodeCheckpointer(name, comm, cp_interval, gc_interval, path)


__all__ = ["create_multi_node_checkpointer", "multi_node_snapshot"]
