"""``MultiprocessIterator``: examples loaded by worker processes, batches prefetched."""

from __future__ import annotations

import collections
import itertools
import operator
import os
import pickle
import time
import warnings
import weakref
from typing import Any

from chainer.iterators import _state, _worker_pool


class _Batch:
    """A batch in flight: its chunks, where its examples go, and the state after it."""

    def __init__(self, batch_id: int, n_examples: int, after: _state.State, segment: Any, first_slot: int) -> None:
        self.batch_id = batch_id
        self.after = after
        self.segment = segment
        self.first_slot = first_slot
        self.chunks: list[Any] = []  # the packed examples of each chunk, when received
        self.chunk_starts: list[int] = []
        self.remaining = 0
        self.error: tuple[Any, ...] | None = None
        self.largest_buffer = 0


class _Resources:
    """What must be released when the iterator is finalized or garbage-collected."""

    def __init__(self) -> None:
        self.pool: _worker_pool.WorkerPool | None = None
        self.segments: list[_worker_pool.SharedSegment] = []

    def release_segment(self, segment: _worker_pool.SharedSegment) -> None:
        if segment in self.segments:
            self.segments.remove(segment)
            segment.release()

    def close_pool(self) -> None:
        pool, self.pool = self.pool, None
        if pool is not None:
            pool.close()

    def close(self) -> None:
        self.close_pool()
        for segment in self.segments:
            segment.release()
        self.segments = []


def _optional_positive_int(value: Any, name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool):
        raise TypeError(f"MultiprocessIterator: {name} must be a positive int or None, got bool")
    try:
        value = operator.index(value)
    except TypeError:
        raise TypeError(
            f"MultiprocessIterator: {name} must be a positive int or None, got {type(value).__name__}"
        ) from None
    if value <= 0:
        raise ValueError(f"MultiprocessIterator: {name} must be positive, got {value}")
    return value


class MultiprocessIterator(_state.StatefulIterator):
    """Dataset iterator that loads examples in parallel.

    The batches (and the epoch accounting) are those of
    :class:`~chainer.iterators.SerialIterator`; the examples are loaded by
    ``n_processes`` worker processes, ``n_prefetch`` batches ahead. The workers start at
    the first :meth:`__next__` and stop at :meth:`finalize` (or when the iterator is
    garbage-collected, or at exit).

    Errors never leave the main process waiting: an exception raised by the dataset in a
    worker is raised again by :meth:`__next__` (with the worker's traceback as a note),
    and a worker that dies while loading (a crash, ``os._exit``, a signal) is noticed at
    once and replaced; the batch that needed its examples raises a ``RuntimeError``
    naming the worker, its exit status and the examples. The batches before it are
    returned normally, and after an error the iterator stays at the batch that failed (a
    retry loads it again). A batch that takes longer than ``dataset_timeout`` seconds
    gives a :class:`MultiprocessIterator.TimeoutWarning` (turn it into an error with
    ``warnings.simplefilter('error', MultiprocessIterator.TimeoutWarning)``).

    Workers are started with the default ``multiprocessing`` start method. With
    ``spawn`` or ``forkserver`` the dataset is pickled to each worker. Each worker
    re-seeds NumPy's global random state, so random augmentations differ between
    workers.

    Args:
        dataset: The dataset (``__getitem__`` and ``__len__``).
        batch_size: The number of examples per batch.
        repeat: Go on after the first epoch.
        shuffle: Shuffle the order every epoch (``None``: yes, unless ``order_sampler``
            is given).
        n_processes: The number of worker processes (default: the number of CPUs).
        n_prefetch: The number of batches loaded ahead of the one being used.
        shared_mem: Bytes of shared memory per example for the array data of the
            examples (pickle-5 out-of-band buffers); an example whose arrays do not fit
            goes through a pipe. ``None`` sizes it from the examples seen so far.
        order_sampler: A callable that gives the order of each epoch.
        dataset_timeout: Seconds after which a batch that is still loading gives a
            ``TimeoutWarning``; ``None`` for no warning.
        maxtasksperchild: Replace a worker after this many tasks (a task is the chunk of
            a batch one worker loads); ``None`` keeps workers for the iterator's life.
    """

    class TimeoutWarning(RuntimeWarning):
        """A batch of ``MultiprocessIterator`` has been loading for longer than ``dataset_timeout``."""

    def __init__(
        self,
        dataset: Any,
        batch_size: int,
        repeat: bool = True,
        shuffle: bool | None = None,
        n_processes: int | None = None,
        n_prefetch: int = 1,
        shared_mem: int | None = None,
        order_sampler: Any = None,
        dataset_timeout: float | None = 30.0,
        maxtasksperchild: int | None = None,
    ) -> None:
        self.dataset = dataset
        self.batch_size = _state.check_batch_size(batch_size, "MultiprocessIterator")
        self.n_processes = _optional_positive_int(n_processes, "n_processes") or os.cpu_count() or 1
        prefetch = _optional_positive_int(n_prefetch, "n_prefetch")
        if prefetch is None:
            raise TypeError("MultiprocessIterator: n_prefetch must be a positive int, got None")
        self.n_prefetch: int = prefetch
        if shared_mem is not None:
            if isinstance(shared_mem, bool) or not isinstance(shared_mem, int) or shared_mem < 0:
                raise ValueError(
                    f"MultiprocessIterator: shared_mem must be a non-negative int or None, got {shared_mem!r}"
                )
        self.shared_mem = shared_mem
        if dataset_timeout is not None:
            if (
                isinstance(dataset_timeout, bool)
                or not isinstance(dataset_timeout, (int, float))
                or dataset_timeout <= 0
            ):
                raise ValueError(
                    f"MultiprocessIterator: dataset_timeout must be a positive number or None, got {dataset_timeout!r}"
                )
        self.dataset_timeout = dataset_timeout
        self.maxtasksperchild = _optional_positive_int(maxtasksperchild, "maxtasksperchild")
        sampler = _state.choose_order_sampler(shuffle, order_sampler, "MultiprocessIterator")
        self._planner = _state.Planner(len(dataset), self.batch_size, bool(repeat), sampler, "MultiprocessIterator")
        self._resources = _Resources()
        self._finalizer = weakref.finalize(self, self._resources.close)
        self._pending: collections.deque[_Batch] = collections.deque()
        self._by_id: dict[int, _Batch] = {}
        self._ids = itertools.count()
        self._segment: _worker_pool.SharedSegment | None = None
        self._largest_buffer = 0
        self._planned: _state.State  # the state after the batches in flight
        self._finalized = False
        self.reset()

    # ------------------------------------------------------------------ scheduling

    def _slot_size(self) -> int:
        if self.shared_mem is not None:
            return self.shared_mem
        if self._largest_buffer == 0:
            return 0
        # Room to grow a little before the segment must be replaced.
        return -(-int(self._largest_buffer * 1.25) // 4096) * 4096

    def _current_segment(self) -> _worker_pool.SharedSegment | None:
        slot_size = self._slot_size()
        if slot_size == 0:
            return None
        segment = self._segment
        if segment is None or segment.slot_size < slot_size:
            if segment is not None:
                self._retire_segment(segment)
            n_slots = (self.n_prefetch + 1) * self.batch_size
            segment = _worker_pool.SharedSegment(n_slots, slot_size)
            self._resources.segments.append(segment)
            self._segment = segment
        return segment

    def _retire_segment(self, segment: _worker_pool.SharedSegment) -> None:
        if self._segment is segment:
            self._segment = None
        if not any(batch.segment is segment for batch in self._pending):
            self._resources.release_segment(segment)

    def _pool(self) -> _worker_pool.WorkerPool:
        if self._resources.pool is None:
            self._resources.pool = _worker_pool.WorkerPool(self.dataset, self.n_processes, self.maxtasksperchild)
        return self._resources.pool

    def _schedule(self) -> bool:
        if self._planner.finished(self._planned):
            return False
        segments, after = self._planner.plan(self._planned)
        indices = _state.flat_indices(segments)
        batch_id = next(self._ids)
        segment = self._current_segment()
        first_slot = (batch_id % (self.n_prefetch + 1)) * self.batch_size
        batch = _Batch(batch_id, len(indices), after, segment, first_slot)
        pool = self._pool()
        size = -(-len(indices) // self.n_processes)
        for chunk_id, start in enumerate(range(0, len(indices), size)):
            chunk = indices[start : start + size]
            pool.submit(batch_id, chunk_id, chunk, first_slot + start, segment)
            batch.chunk_starts.append(start)
            batch.chunks.append(None)
            batch.remaining += 1
        self._pending.append(batch)
        self._by_id[batch_id] = batch
        self._planned = after
        return True

    def _fill(self) -> None:
        while len(self._pending) < self.n_prefetch + 1 and self._schedule():
            pass

    def _discard(self) -> None:
        """Forget the batches in flight (their late results are dropped)."""
        if self._pending and self._resources.pool is not None:
            self._resources.pool.forget({batch.batch_id for batch in self._pending})
        segments = {id(b.segment): b.segment for b in self._pending if b.segment is not None}
        self._pending.clear()
        self._by_id.clear()
        # Workers may still write into the slots of the forgotten batches: use new memory.
        for segment in segments.values():
            self._retire_segment(segment)
        if self._segment is not None and segments:
            self._retire_segment(self._segment)

    def _set_state(self, state: _state.State) -> None:
        self._discard()
        self._state = self._planned = state

    # ------------------------------------------------------------------ receiving

    def _deliver(self, message: tuple[Any, ...]) -> None:
        kind, batch_id, chunk_id, payload = message
        batch = self._by_id.get(batch_id)
        if batch is None:
            return
        batch.remaining -= 1
        if kind in ("error", "died"):
            if batch.error is None:
                batch.error = (kind, payload)
            return
        batch.chunks[chunk_id] = payload
        batch.largest_buffer = max(batch.largest_buffer, payload[-1])

    def _wait(self, batch: _Batch) -> None:
        pool = self._pool()
        started = time.monotonic()
        warned = self.dataset_timeout is None
        while batch.remaining and batch.error is None:
            timeout = None
            if not warned:
                timeout = max(0.0, started + self.dataset_timeout - time.monotonic())  # type: ignore[operator]
            for message in pool.poll(timeout):
                self._deliver(message)
            if not warned and batch.remaining and time.monotonic() - started >= self.dataset_timeout:  # type: ignore[operator]
                warned = True
                warnings.warn(
                    f"MultiprocessIterator: a batch has been loading for more than {self.dataset_timeout} seconds "
                    "(dataset_timeout); the dataset may be slow or stuck",
                    MultiprocessIterator.TimeoutWarning,
                    stacklevel=3,
                )

    def __next__(self) -> list[Any]:
        self._fill()
        if not self._pending:
            raise StopIteration
        batch = self._pending[0]
        try:
            self._wait(batch)
            if batch.error is not None:
                kind, payload = batch.error
                if kind == "died":
                    raise _worker_pool.WorkerDiedError(payload)
                data, text, index = payload
                exc = pickle.loads(data)
                exc.add_note(f"raised in a MultiprocessIterator worker while loading example {index}:\n{text}")
                raise exc
            examples = self._unpack(batch)
        except BaseException:
            self._set_state(self._state)  # stay at the batch that failed
            raise
        self._pending.popleft()
        del self._by_id[batch.batch_id]
        if batch.segment is not None and batch.segment is not self._segment:
            self._retire_segment(batch.segment)
        self._largest_buffer = max(self._largest_buffer, batch.largest_buffer)
        self._state = batch.after
        self._fill()
        return examples

    next = __next__

    def _unpack(self, batch: _Batch) -> list[Any]:
        segment = batch.segment
        out: list[Any] = []
        for start, packed in zip(batch.chunk_starts, batch.chunks):
            if segment is None or packed[0] == "pipe":
                out.extend(_worker_pool.unpack_without_segment(packed))
            else:
                out.extend(segment.unpack(packed, batch.first_slot + start))
        return out

    # ------------------------------------------------------------------ the rest

    def reset(self) -> None:
        """Go back to the start of the first epoch (with a new order if shuffling).

        Raises:
            NotImplementedError: The iterator has been finalized (as in Chainer 7).
        """
        if self._finalized:
            raise NotImplementedError(
                "MultiprocessIterator: reset() after finalize() is not supported; create a new iterator"
            )
        self._set_state(self._planner.initial())

    def finalize(self) -> None:
        """Stop the workers and release the shared memory. The iterator starts new
        workers if it is used again, but cannot be :meth:`reset`."""
        self._discard()
        self._planned = self._state
        self._segment = None
        self._resources.close()
        self._finalized = True

    def __getstate__(self) -> dict[str, Any]:
        # The workers, pipes and shared memory stay with this process; a copy starts
        # its own at its first batch, from the position of the last batch returned.
        state = self.__dict__.copy()
        for name in ("_resources", "_finalizer", "_pending", "_by_id", "_ids", "_segment"):
            del state[name]
        state["_planned"] = self._state
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._resources = _Resources()
        self._finalizer = weakref.finalize(self, self._resources.close)
        self._pending = collections.deque()
        self._by_id = {}
        self._ids = itertools.count()
        self._segment = None

    def serialize(self, serializer: Any) -> None:
        """Save or load the state (the keys of :class:`SerialIterator`)."""
        loaded = _state.serialize_state(serializer, self._state, self._planner)
        if not _state.same_state(loaded, self._state):
            self._set_state(loaded)
