"""``MultithreadIterator``: examples loaded by a pool of threads, one batch ahead."""

from __future__ import annotations

import collections
import concurrent.futures
import operator
from typing import Any

from chainer.iterators import _state


def _fetch(dataset: Any, indices: list[int]) -> list[Any]:
    return [dataset[i] for i in indices]


class MultithreadIterator(_state.StatefulIterator):
    """Dataset iterator that loads examples in parallel.

    The batches (and the epoch accounting) are those of
    :class:`~chainer.iterators.SerialIterator`; the examples are loaded by ``n_threads``
    threads, and the next batch is loaded while the current one is used. Threads help
    when loading waits on I/O or runs code that releases the GIL (decoding images,
    NumPy). An exception raised by the dataset is raised by :meth:`__next__`, and the
    iterator stays at the batch that failed.

    Args:
        dataset: The dataset (``__getitem__`` and ``__len__``); it is read from several
            threads at once.
        batch_size: The number of examples per batch.
        repeat: Go on after the first epoch.
        shuffle: Shuffle the order every epoch (``None``: yes, unless ``order_sampler``
            is given).
        n_threads: The number of threads.
        order_sampler: A callable that gives the order of each epoch.
    """

    def __init__(
        self,
        dataset: Any,
        batch_size: int,
        repeat: bool = True,
        shuffle: bool | None = None,
        n_threads: int = 1,
        order_sampler: Any = None,
    ) -> None:
        self.dataset = dataset
        self.batch_size = _state.check_batch_size(batch_size, "MultithreadIterator")
        try:
            self.n_threads = operator.index(n_threads)
        except TypeError:
            raise TypeError(f"MultithreadIterator: n_threads must be an int, got {type(n_threads).__name__}") from None
        if self.n_threads <= 0:
            raise ValueError(f"MultithreadIterator: n_threads must be positive, got {n_threads}")
        sampler = _state.choose_order_sampler(shuffle, order_sampler, "MultithreadIterator")
        self._planner = _state.Planner(len(dataset), self.batch_size, bool(repeat), sampler, "MultithreadIterator")
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None
        self._planned: _state.State  # the state after the batches in flight
        self._pending: collections.deque[tuple[list[concurrent.futures.Future[list[Any]]], _state.State]] = (
            collections.deque()
        )
        self.reset()

    def _schedule(self) -> None:
        if self._planner.finished(self._planned):
            return
        segments, after = self._planner.plan(self._planned)
        indices = _state.flat_indices(segments)
        if self._pool is None:
            self._pool = concurrent.futures.ThreadPoolExecutor(self.n_threads, thread_name_prefix="MultithreadIterator")
        size = -(-len(indices) // self.n_threads) or 1
        chunks = [indices[i : i + size] for i in range(0, len(indices), size)]
        futures = [self._pool.submit(_fetch, self.dataset, chunk) for chunk in chunks]
        self._pending.append((futures, after))
        self._planned = after

    def _discard(self) -> None:
        while self._pending:
            futures, _ = self._pending.popleft()
            for future in futures:
                future.cancel()

    def _set_state(self, state: _state.State) -> None:
        self._discard()
        self._state = self._planned = state

    def __next__(self) -> list[Any]:
        if not self._pending:
            self._schedule()
        if not self._pending:
            raise StopIteration
        futures, after = self._pending.popleft()
        self._schedule()  # the next batch loads while this one is collected and used
        try:
            batch = [example for future in futures for example in future.result()]
        except BaseException:
            self._set_state(self._state)  # stay at the failed batch
            raise
        self._state = after
        return batch

    next = __next__

    def reset(self) -> None:
        """Go back to the start of the first epoch (with a new order if shuffling)."""
        self._set_state(self._planner.initial())

    def finalize(self) -> None:
        """Stop the threads. The iterator starts new ones if it is used again."""
        self._discard()
        self._planned = self._state
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)

    def serialize(self, serializer: Any) -> None:
        """Save or load the state (the keys of :class:`SerialIterator`)."""
        loaded = _state.serialize_state(serializer, self._state, self._planner)
        if not _state.same_state(loaded, self._state):
            self._set_state(loaded)
