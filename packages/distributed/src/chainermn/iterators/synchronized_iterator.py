"""create_synchronized_iterator: the same shuffled order on every process, without
exchanging batches."""

from __future__ import annotations

from typing import Any

import numpy


def _order_sampler_holder(iterator: Any) -> Any:
    # chainer-datasets' iterators keep the sampler in their planner (the public
    # attribute is read-only); other iterators expose a settable ``order_sampler``.
    planner = getattr(iterator, "_planner", None)
    if hasattr(planner, "order_sampler"):
        return planner
    return iterator if hasattr(iterator, "order_sampler") else None


def create_synchronized_iterator(actual_iterator: Any, communicator: Any) -> Any:
    """Create a synchronized iterator from a Chainer iterator.

    Rank 0 draws a seed and broadcasts it; every process's iterator then shuffles with a
    :class:`chainer.iterators.ShuffleOrderSampler` seeded with it, so all processes visit
    their data sets in the same order without exchanging batches. The data sets must have
    the same length on every process.

    Args:
        actual_iterator: A Chainer iterator with an ``order_sampler`` (``SerialIterator``,
            ``MultiprocessIterator``, ...).
        communicator: ChainerMN communicator.

    Returns:
        ``actual_iterator``, reset and re-seeded.

    Example:
        >>> it = chainermn.iterators.create_synchronized_iterator(SerialIterator(train, 32), comm)  # doctest: +SKIP
    """
    from chainer.iterators import order_samplers

    where = "create_synchronized_iterator"
    holder = _order_sampler_holder(actual_iterator)
    ok = holder is not None and hasattr(actual_iterator, "reset")
    error = None if ok else f"the iterator needs an order sampler and reset(); got {type(actual_iterator).__name__}"
    errors = communicator.gather_obj(error, root=0)
    errors = communicator.bcast_obj(errors, root=0)
    failed = [f"rank {r}: {e}" for r, e in enumerate(errors) if e is not None]
    if failed:
        raise TypeError(f"{where}: " + "; ".join(failed))
    seed = communicator.bcast_obj(numpy.random.randint(0, 2**32, dtype=numpy.uint64).item(), root=0)
    # A non-shuffling iterator (no sampler) visits the same order everywhere already.
    if holder.order_sampler is not None:
        holder.order_sampler = order_samplers.ShuffleOrderSampler(numpy.random.RandomState(seed))
    actual_iterator.reset()
    return actual_iterator


__all__ = ["create_synchronized_iterator"]
