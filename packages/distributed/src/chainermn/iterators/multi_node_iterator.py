"""create_multi_node_iterator: the batches of one process, on every process."""

from __future__ import annotations

from typing import Any

import numpy

_STATE_ATTRS = ("epoch", "is_new_epoch", "epoch_detail", "previous_epoch_detail", "current_position")


class _MultiNodeIterator:
    """The master reads batches from its iterator and broadcasts them (with the epoch
    counters) to the other processes, which mirror its state."""

    def __init__(self, actual_iterator: Any, communicator: Any, rank_master: int) -> None:
        self.actual_iterator = actual_iterator
        self.communicator = communicator
        self.rank_master = rank_master
        self._state = self._broadcast_state()

    @property
    def _is_master(self) -> bool:
        return self.communicator.rank == self.rank_master

    def _local_state(self) -> dict[str, Any]:
        return {name: getattr(self.actual_iterator, name, None) for name in _STATE_ATTRS}

    def _broadcast_state(self, extra: Any = None) -> dict[str, Any]:
        payload = (self._local_state(), extra) if self._is_master else None
        state, extra = self.communicator.bcast_obj(payload, root=self.rank_master)
        state["_extra"] = extra
        return state

    def __iter__(self) -> _MultiNodeIterator:
        return self

    def __next__(self) -> Any:
        batch, stop, error = None, False, None
        if self._is_master:
            try:
                batch = self.actual_iterator.__next__()
            except StopIteration:
                stop = True
            except Exception as exc:  # the other processes must not wait for a batch forever
                error = exc
        state = self._broadcast_state((batch, stop, None if error is None else f"{type(error).__name__}: {error}"))
        batch, stop, message = state.pop("_extra")
        self._state = state
        if error is not None:
            raise error
        if message is not None:
            raise RuntimeError(f"multi-node iterator: the master (rank {self.rank_master}) failed: {message}")
        if stop:
            raise StopIteration
        return batch

    next = __next__

    def __getattr__(self, name: str) -> Any:
        if name in _STATE_ATTRS and "_state" in self.__dict__ and not self._is_master:
            return self._state[name]
        return getattr(self.actual_iterator, name)

    def reset(self) -> None:
        if self._is_master:
            self.actual_iterator.reset()
        self._state = self._broadcast_state()

    def serialize(self, serializer: Any) -> None:
        """The master's iterator is (de)serialized; the others then take its state.
        Every process must call it at the same time."""
        if self._is_master:
            self.actual_iterator.serialize(serializer)
        self._state = self._broadcast_state()

    def finalize(self) -> None:
        self.actual_iterator.finalize()


def create_multi_node_iterator(actual_iterator: Any, communicator: Any, rank_master: int = 0) -> Any:
    """Create a multi node iterator from a Chainer iterator.

    Every process receives the batches that ``actual_iterator`` of process
    ``rank_master`` produces (broadcast at each iteration), and the same epoch counters.
    The other processes' iterators are not advanced (their data set may be a
    :func:`~chainermn.datasets.create_empty_dataset`). Creation, iteration and
    ``serialize`` are collective calls.

    Args:
        actual_iterator: A Chainer iterator (e.g. :class:`chainer.iterators.SerialIterator`).
        communicator: ChainerMN communicator.
        rank_master: Rank whose iterator produces the batches.

    Returns:
        The iterator.

    Example:
        >>> it = chainermn.iterators.create_multi_node_iterator(SerialIterator(train, 32), comm)  # doctest: +SKIP
    """
    if not isinstance(rank_master, (int, numpy.integer)) or not 0 <= rank_master < communicator.size:
        raise ValueError(
            f"create_multi_node_iterator: rank_master must be a rank in [0, {communicator.size}), got {rank_master!r}"
        )
    return _MultiNodeIterator(actual_iterator, communicator, int(rank_master))


def _build_ctrl_msg(
    stop: bool, is_valid_data_type: bool, is_paired_dataset: bool, is_new_epoch: bool, current_position: int
) -> numpy.ndarray:
    """The control message of a multi-node iterator step as an int64 array (the flags as
    0/1, then the position in the epoch); :func:`_parse_ctrl_msg` reads it back."""
    return numpy.array(
        [int(bool(stop)), int(bool(is_valid_data_type)), int(bool(is_paired_dataset)), int(bool(is_new_epoch)),
         int(current_position)],
        dtype=numpy.int64,
    )  # fmt: skip


def _parse_ctrl_msg(msg: Any) -> tuple[bool, bool, bool, bool, int]:
    """``(stop, is_valid_data_type, is_paired_dataset, is_new_epoch, current_position)``
    of a message made by :func:`_build_ctrl_msg`."""
    msg = numpy.asarray(msg)
    if msg.shape != (5,):
        raise ValueError(f"_parse_ctrl_msg: a control message has 5 entries, got shape {msg.shape}")
    stop, valid, paired, new_epoch, position = (int(v) for v in msg)
    return bool(stop), bool(valid), bool(paired), bool(new_epoch), position


__all__ = ["create_multi_node_iterator"]
