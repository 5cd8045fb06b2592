"""Chainer 7's functional form of the iterators' epoch bookkeeping.

``iterator_statemachine(state, ...)`` gives the dataset indices of the next batch and the
state after it, without a dataset: custom iterators written for Chainer 7 (prefetching
ones among them) use it. The built-in iterators plan with :mod:`chainer.iterators._state`,
which this wraps.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy

from chainer.iterators import _state


class IteratorState(NamedTuple):
    """Where an iterator stands: position in the epoch, epoch count, whether the last
    batch ended an epoch, and the order of this epoch (``None``: dataset order)."""

    current_position: int
    epoch: int
    is_new_epoch: bool
    order: numpy.ndarray | None


def iterator_statemachine(
    state: IteratorState, batch_size: int, repeat: bool, order_sampler: Any, dataset_len: int
) -> tuple[IteratorState, numpy.ndarray | None]:
    """The next batch of an iterator in ``state``.

    Args:
        state: The current state.
        batch_size: The number of examples per batch.
        repeat: Whether the iterator goes on after the first epoch.
        order_sampler: Called at the end of each epoch (when repeating) as
            ``order_sampler(order, current_position)`` for the next order, or ``None``
            when ``state.order`` is ``None``.
        dataset_len: The number of examples of the dataset.

    Returns:
        The state after the batch and the dataset indices of its examples (an int
        array), or ``(state, None)`` when a non-repeating iterator has finished.
    """
    batch_size = _state.check_batch_size(batch_size, "iterator_statemachine")
    if state.order is None:
        order_sampler = None
    planner = _state.Planner(dataset_len, batch_size, repeat, order_sampler, "iterator_statemachine")
    current = _state.State(state.current_position, state.epoch, state.is_new_epoch, -1.0, state.order)
    if planner.finished(current):
        return state, None
    segments, after = planner.plan(current)
    indices = numpy.asarray(_state.flat_indices(segments), dtype=numpy.int64)
    return IteratorState(after.current_position, after.epoch, after.is_new_epoch, after.order), indices
