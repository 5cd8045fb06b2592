"""Snapshot writers: how (synchronously, in a thread, in a process, through a queue) a
snapshot extension writes its files.

Every writer writes atomically: the save function writes into a hidden temporary
directory next to the target, and the finished file is then moved over the target in
one step (``os.replace``). A writer killed in the middle of a save leaves the previous
snapshot intact, and a hidden ``.<name>.*.chainer-tmp`` directory behind, which a later
save into the same directory removes once it has been left untouched for an hour (see
:func:`chainer.utils.remove_stale_temporaries`).

A writer is called as ``writer(filename, outdir, target)``. The snapshot extensions
pass, as ``target``, an object holding a copy of the state taken when the snapshot was
requested (with a ``serialize`` method, so any ``savefun`` that calls
``target.serialize(serializer)``, such as :func:`~chainer.serializers.save_npz` or
:func:`~chainer.serializers.save_hdf5`, writes it); the training may therefore go on
while a thread or a process writes it.

Every writer is used the same way: it is given to :func:`~chainer.training.extensions.snapshot`
(or :func:`~chainer.training.extensions.snapshot_object`), and the trainer waits for the
pending writes (:meth:`Writer.finalize`) when the training ends.

Example:
    >>> from chainer import training
    >>> from chainer.training import extensions
    >>> from chainer.training.extensions import snapshot_writers
    >>> model = L.Classifier(L.Linear(3, 2))
    >>> optimizer = chainer.optimizers.SGD(lr=0.1).setup(model)
    >>> train = chainer.datasets.TupleDataset(np.ones((4, 3), 'f'), np.zeros(4, 'i'))
    >>> train_iter = chainer.iterators.SerialIterator(train, 2)
    >>> trainer = training.Trainer(training.StandardUpdater(train_iter, optimizer), (2, 'epoch'))
    >>> writer = snapshot_writers.ThreadWriter()  # or any other writer of this module
    >>> trainer.extend(extensions.snapshot(writer=writer), trigger=(2, 'epoch'))
    >>> trainer.run()  # the trainer waits for the writer when training ends
    >>> import os
    >>> os.listdir('result')
    ['snapshot_iter_4']
"""

from __future__ import annotations

import multiprocessing
import queue
import sys
import threading
import traceback
from collections.abc import Callable
from typing import Any

from chainer.serializers import npz
from chainer.training import _util


class Writer:
    """Base class of snapshot writers.

    A subclass implements ``__call__(filename, outdir, target)``; :meth:`save` does
    the atomic write and :meth:`finalize` waits for pending writes.
    """

    #: Whether the write may happen after ``__call__`` returns (the snapshot extension
    #: then hands over a copy of the state rather than the live objects).
    asynchronous = True

    def __init__(self) -> None:
        self._post_save_hooks: list[Callable[[], Any]] = []

    def __call__(self, filename: str, outdir: str, target: Any) -> None:
        raise NotImplementedError(f"{type(self).__name__} must implement __call__(filename, outdir, target)")

    def save(self, filename: str, outdir: str, target: Any, savefun: Callable[..., Any], **kwds: Any) -> None:
        """Write ``target`` to ``outdir/filename`` with ``savefun(path, target, **kwds)``,
        atomically, then run the post-save hooks."""
        _util.save_atomically(outdir, filename, lambda path: savefun(path, target, **kwds))
        self._post_save()

    def finalize(self) -> None:
        """Wait for pending writes and release resources (nothing by default)."""

    def _add_cleanup_hook(self, hook: Callable[[], Any]) -> None:
        self._post_save_hooks.append(hook)

    def _post_save(self) -> None:
        for hook in self._post_save_hooks:
            hook()


def _check_savefun(where: str, savefun: Callable[..., Any]) -> Callable[..., Any]:
    if not callable(savefun):
        raise TypeError(f"{where}: savefun must be callable, got {type(savefun).__name__}")
    return savefun


class SimpleWriter(Writer):
    """The most simple snapshot writer: writes in the calling thread, at once.

    Args:
        savefun: ``savefun(path, target, **kwds)`` (default
            :func:`~chainer.serializers.save_npz`).
        kwds: Keyword arguments passed to ``savefun``.

    Example:
        >>> from chainer.training import extensions
        >>> from chainer.training.extensions import snapshot_writers
        >>> writer = snapshot_writers.SimpleWriter(savefun=chainer.serializers.save_hdf5)
        >>> trainer_extension = extensions.snapshot(writer=writer)  # for trainer.extend()
    """

    asynchronous = False

    def __init__(self, savefun: Callable[..., Any] = npz.save_npz, **kwds: Any) -> None:
        super().__init__()
        self._savefun = _check_savefun("SimpleWriter", savefun)
        self._kwds = kwds

    def __call__(self, filename: str, outdir: str, target: Any) -> None:
        self.save(filename, outdir, target, self._savefun, **self._kwds)


def _save_in_worker(savefun: Callable[..., Any], filename: str, outdir: str, target: Any, kwds: dict[str, Any]) -> None:
    # Module level, so that a spawned process can import it.
    _util.save_atomically(outdir, filename, lambda path: savefun(path, target, **kwds))


class StandardWriter(Writer):
    """Base class of the writers that start one worker (thread or process) per snapshot.

    A new snapshot waits for the previous worker to finish; an error in a worker is
    raised by the next call (or by :meth:`finalize`).

    Args:
        savefun: ``savefun(path, target, **kwds)`` (default ``save_npz``).
        kwds: Keyword arguments passed to ``savefun``.
    """

    def __init__(self, savefun: Callable[..., Any] = npz.save_npz, **kwds: Any) -> None:
        super().__init__()
        self._savefun = _check_savefun(type(self).__name__, savefun)
        self._kwds = kwds
        self._worker: Any = None
        self._filename: str | None = None
        self._error: BaseException | None = None

    def __call__(self, filename: str, outdir: str, target: Any) -> None:
        self._join()
        self._filename = filename
        self._worker = self.create_worker(filename, outdir, target, **self._kwds)
        self._worker.start()

    def create_worker(self, filename: str, outdir: str, target: Any, **kwds: Any) -> Any:
        """Return an unstarted worker (with ``start`` and ``join``) that writes the
        snapshot; a subclass must implement it."""
        raise NotImplementedError(f"{type(self).__name__} must implement create_worker()")

    def _join(self) -> None:
        worker, self._worker = self._worker, None
        if worker is None:
            return
        worker.join()
        exitcode = getattr(worker, "exitcode", 0)
        error, self._error = self._error, None
        if error is not None:
            raise RuntimeError(f"{type(self).__name__}: writing the snapshot {self._filename!r} failed") from error
        # Only a process has an exit status (an int); a thread or a custom worker has none.
        if isinstance(exitcode, int) and exitcode != 0:
            raise RuntimeError(
                f"{type(self).__name__}: the process writing the snapshot {self._filename!r} failed (exit code {exitcode})"
            )
        self._post_save()

    def finalize(self) -> None:
        """Wait for the last snapshot to be written."""
        self._join()


class ThreadWriter(StandardWriter):
    """Snapshot writer that uses a separate thread.

    Takes the arguments of :class:`StandardWriter`.

    Example:
        >>> from chainer.training import extensions
        >>> from chainer.training.extensions import snapshot_writers
        >>> writer = snapshot_writers.ThreadWriter()
        >>> trainer_extension = extensions.snapshot(writer=writer)  # for trainer.extend()
    """

    def create_worker(self, filename: str, outdir: str, target: Any, **kwds: Any) -> threading.Thread:
        def run() -> None:
            try:
                _save_in_worker(self._savefun, filename, outdir, target, kwds)
            except BaseException as exc:
                self._error = exc

        return threading.Thread(target=run, name=f"snapshot-writer-{filename}", daemon=False)


class ProcessWriter(StandardWriter):
    """Snapshot writer that uses a separate process.

    The state is handed to the process (copied by ``fork``, or pickled with other
    start methods); the save function must be importable (a module-level function).

    Takes the arguments of :class:`StandardWriter`.

    Example:
        >>> from chainer.training import extensions
        >>> from chainer.training.extensions import snapshot_writers
        >>> writer = snapshot_writers.ProcessWriter(compression=False)  # save_npz(..., compression=False)
        >>> trainer_extension = extensions.snapshot(writer=writer)  # for trainer.extend()
    """

    def create_worker(self, filename: str, outdir: str, target: Any, **kwds: Any) -> Any:
        return multiprocessing.Process(
            target=_save_in_worker, args=(self._savefun, filename, outdir, target, kwds), name="snapshot-writer"
        )


class QueueWriter(Writer):
    """Base class of queue snapshot writers.

    Snapshots are put in a queue and written one after the other by a consumer (a
    thread or a process) started when the writer is created; :meth:`finalize` waits
    until the queue is empty and stops the consumer.

    Args:
        savefun: ``savefun(path, target)`` used by the default task.
        task: A callable ``task(filename, outdir, target)`` that writes one snapshot;
            by default a :class:`SimpleWriter` with ``savefun``.
    """

    def __init__(self, savefun: Callable[..., Any] = npz.save_npz, task: Any = None) -> None:
        super().__init__()
        self._task = self.create_task(savefun) if task is None else task
        if not callable(self._task):
            raise TypeError(f"{type(self).__name__}: task must be callable, got {type(self._task).__name__}")
        self._queue = self.create_queue()
        self._consumer = self.create_consumer(self._queue)
        self._consumer.start()
        self._started = True
        self._finalized = False
        self._errors: list[BaseException] = []

    def __call__(self, filename: str, outdir: str, target: Any) -> None:
        if self._finalized:
            raise RuntimeError(f"{type(self).__name__}: the writer was finalized and cannot write more snapshots")
        self._queue.put([self._task, filename, outdir, target])

    def create_task(self, savefun: Callable[..., Any]) -> Any:
        """The default task: a :class:`SimpleWriter` with ``savefun``."""
        return SimpleWriter(savefun=savefun)

    def create_queue(self) -> Any:
        """Return the queue; a subclass must implement it."""
        raise NotImplementedError(f"{type(self).__name__} must implement create_queue()")

    def create_consumer(self, q: Any) -> Any:
        """Return the unstarted consumer of ``q``; a subclass must implement it."""
        raise NotImplementedError(f"{type(self).__name__} must implement create_consumer(q)")

    def consume(self, q: Any) -> None:
        """Write the snapshots of ``q`` until ``None`` comes (runs in the consumer).

        A snapshot that fails is reported on stderr (and, for a thread consumer, raised
        by :meth:`finalize`); the following ones are still written.
        """
        while True:
            item = q.get()
            try:
                if item is None:
                    return
                # Indexed rather than unpacked: any sequence of (task, filename, outdir,
                # target) is an item, as in Chainer 7.
                task, filename, outdir, target = item[0], item[1], item[2], item[3]
                try:
                    task(filename, outdir, target)
                except Exception as exc:
                    self._errors.append(exc)
                    sys.stderr.write(f"{type(self).__name__}: writing the snapshot {filename!r} failed:\n")
                    traceback.print_exc(file=sys.stderr)
            finally:
                q.task_done()

    def finalize(self) -> None:
        """Wait until every queued snapshot is written, and stop the consumer."""
        if self._started and not self._finalized:
            self._queue.put(None)
            self._queue.join()
            self._consumer.join()
        self._started = False
        self._finalized = True
        if self._errors:
            error, self._errors = self._errors[0], []
            raise RuntimeError(f"{type(self).__name__}: a snapshot could not be written") from error


class ThreadQueueWriter(QueueWriter):
    """Snapshot writer that uses a thread queue.

    Example:
        >>> from chainer.training import extensions
        >>> from chainer.training.extensions import snapshot_writers
        >>> writer = snapshot_writers.ThreadQueueWriter()
        >>> trainer_extension = extensions.snapshot(writer=writer)  # for trainer.extend()
        >>> writer.finalize()  # stops the consumer; the trainer does it when training ends
    """

    def create_queue(self) -> queue.Queue[Any]:
        return queue.Queue()

    def create_consumer(self, q: Any) -> threading.Thread:
        return threading.Thread(target=self.consume, args=(q,), name="snapshot-queue-writer", daemon=True)


class ProcessQueueWriter(QueueWriter):
    """Snapshot writer that uses process queue.

    The consumer process is started (forked on Linux) when the writer is created; the
    queued states are pickled to it.

    Example:
        >>> from chainer.training import extensions
        >>> from chainer.training.extensions import snapshot_writers
        >>> writer = snapshot_writers.ProcessQueueWriter()
        >>> trainer_extension = extensions.snapshot(writer=writer)  # for trainer.extend()
        >>> writer.finalize()  # stops the consumer; the trainer does it when training ends
    """

    def create_queue(self) -> Any:
        return multiprocessing.JoinableQueue()

    def create_consumer(self, q: Any) -> Any:
        return multiprocessing.Process(target=self.consume, args=(q,), name="snapshot-queue-writer", daemon=True)


__all__ = [
    "ProcessQueueWriter",
    "ProcessWriter",
    "QueueWriter",
    "SimpleWriter",
    "StandardWriter",
    "ThreadQueueWriter",
    "ThreadWriter",
    "Writer",
]
