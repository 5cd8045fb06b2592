"""create_multi_node_checkpointer: each process's own generational checkpoints."""

from __future__ import annotations

import os
import re
import time
from typing import Any

from chainer import serializers, utils
from chainer.training import extension as extension_module
from chainermn.communicators import _communication_utility


class _CheckpointStats:
    """How long the saves of a checkpointer took (:meth:`start` and :meth:`end` around
    each)."""

    def __init__(self) -> None:
        self.durations: list[float] = []
        self._started: float | None = None

    def start(self) -> None:
        self._started = time.perf_counter()

    def end(self) -> None:
        if self._started is None:
            raise RuntimeError("_CheckpointStats.end: start() was not called")
        self.durations.append(time.perf_counter() - self._started)
        self._started = None

    def report(self) -> str:
        """A one-line summary: the number of saves and their total, mean, min and max time."""
        if not self.durations:
            return "no checkpoint saved"
        total = sum(self.durations)
        return (
            f"{len(self.durations)} checkpoints saved in {total:.3f} s (mean {total / len(self.durations):.3f} s, "
            f"min {min(self.durations):.3f} s, max {max(self.durations):.3f} s)"
        )


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
        self._stats = _CheckpointStats()
        self._pattern = re.compile(rf"^({re.escape(name)})\.(\d+)\.(\d+)$")

    def _dir(self, trainer: Any = None) -> str:
        if self.path is not None:
            return self.path
        return getattr(trainer, "out", None) or os.getcwd()

    def _filenames(self, iterations: Any) -> list[str]:
        """The file names of this process's checkpoints of ``iterations``."""
        return [f"{self.name}.{self.comm.rank}.{int(i)}" for i in iterations]

    def _parse_filenames(self, filenames: Any) -> list[tuple[str, int, int]]:
        """``(name, rank, iteration)`` of the file names that are checkpoints of this
        checkpointer's ``name`` (of any rank); other names are left out."""
        parsed = []
        for filename in filenames:
            match = self._pattern.match(filename)
            if match:
                parsed.append((match.group(1), int(match.group(2)), int(match.group(3))))
        return parsed

    def _files(self, directory: str) -> dict[int, str]:
        """This process's checkpoints in ``directory``, by iteration."""
        if not os.path.isdir(directory):
            return {}
        rank = self.comm.rank
        return {
            iteration: os.path.join(directory, f"{name}.{r}.{iteration}")
            for name, r, iteration in self._parse_filenames(os.listdir(directory))
            if r == rank
        }

    def get_stats(self) -> str:
        """How long the saves took so far (one line)."""
        return self._stats.report()

    def __call__(self, trainer: Any) -> None:
        self.save(trainer, trainer.updater.iteration)

    def save(self, target: Any, iteration: int | None = None) -> None:
        """Write a checkpoint of ``target`` (atomically) and collect old ones."""
        if iteration is None:
            updater = getattr(target, "updater", None)
            iteration = updater.iteration if updater is not None else self._saves + 1
        directory = self._dir(target)
        os.makedirs(directory, exist_ok=True)
        (final,) = (os.path.join(directory, f) for f in self._filenames([iteration]))
        self._stats.start()
        tmp = utils.make_temporary(final)
        try:
            serializers.save_npz(tmp, target)
            os.replace(tmp, final)
        except BaseException:
            if os.path.exists(tmp):
                os.remove(tmp)
            raise
        self._stats.end()
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
        common = set.intersection(*[set(s) for s in _communication_utility.allgather_obj(self.comm, sorted(mine))])
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


__all__ = ["create_multi_node_checkpointer"]
