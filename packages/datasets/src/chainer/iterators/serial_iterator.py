"""``SerialIterator``: mini-batches read in the calling thread."""

from __future__ import annotations

from typing import Any

from chainer.iterators import _state


class SerialIterator(_state.StatefulIterator):
    """Dataset iterator that serially reads the examples.

    Each call of :meth:`__next__` returns a list of ``batch_size`` examples. With
    ``repeat=True`` (the default) the iteration never ends: a batch that crosses the end
    of an epoch is completed from the next epoch (in its new order). With
    ``repeat=False`` it stops after one epoch, and the last batch may be smaller.

    Args:
        dataset: Any object with ``__getitem__`` and ``__len__`` (a list or an array
            works).
        batch_size: The number of examples per batch.
        repeat: Go on after the first epoch.
        shuffle: Shuffle the order every epoch. ``None`` (the default) means ``True``
            unless ``order_sampler`` is given; it must be ``None`` if it is.
        order_sampler: A callable that gives the order of each epoch (see
            :class:`~chainer.iterators.OrderSampler`).

    Example:
        >>> from chainer.iterators import SerialIterator
        >>> it = SerialIterator(list(range(5)), 2, repeat=False, shuffle=False)
        >>> [batch for batch in it]
        [[0, 1], [2, 3], [4]]
    """

    def __init__(
        self, dataset: Any, batch_size: int, repeat: bool = True, shuffle: bool | None = None, order_sampler: Any = None
    ) -> None:
        self.dataset = dataset
        self.batch_size = _state.check_batch_size(batch_size, "SerialIterator")
        sampler = _state.choose_order_sampler(shuffle, order_sampler, "SerialIterator")
        self._planner = _state.Planner(len(dataset), self.batch_size, bool(repeat), sampler, "SerialIterator")
        self.reset()

    def __next__(self) -> list[Any]:
        if self._planner.finished(self._state) or (self._planner.size == 0):
            raise StopIteration
        segments, after = self._planner.plan(self._state)
        batch: list[Any] = []
        for segment in segments:
            if isinstance(segment, slice):
                batch.extend(self.dataset[segment])
            else:
                batch.extend(self.dataset[index] for index in segment)
        self._state = after
        return batch

    next = __next__

    def reset(self) -> None:
        """Go back to the start of the first epoch (with a new order if shuffling)."""
        self._state = self._planner.initial()

    def serialize(self, serializer: Any) -> None:
        """Save or load the position, the epoch and the order (Chainer 7's keys:
        ``current_position``, ``epoch``, ``is_new_epoch``, ``order``,
        ``previous_epoch_detail``)."""
        self._state = _state.serialize_state(serializer, self._state, self._planner)
