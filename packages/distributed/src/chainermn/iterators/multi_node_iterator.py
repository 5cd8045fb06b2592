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
        self._mirror = self._broadcast_state()

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
        self._mirror = state
        if error is not None:
            raise error
        if message is not None:
            raise RuntimeError(f"multi-node iterator: the master (rank {self.rank_master}) failed: {message}")
        if stop:
            raise StopIteration
        return batch

    next = __next__

    def __getattr__(self, name: str) -> Any:
        if name in _STATE_ATTRS and "_mirror" in self.__dict__ and not self._is_master:
            return self._mirror[name]
        return getattr(self.actual_iterator, name)

    def reset(self) -> None:
        if self._is_master:
            self.actual_iterator.reset()
        self._mirror = self._broadcast_state()

    def serialize(self, serializer: Any) -> None:
        """Save or load the master's iterator state. Collective.

        Saving, every process writes the master's state (so that any process's snapshot
        resumes a plain iterator where the master was); loading, the master's iterator
        takes the loaded state and the others mirror it.
        """
        from chainer import serializer as serializer_module

        if isinstance(serializer, serializer_module.Deserializer):
            if self._is_master:
                self.actual_iterator.serialize(serializer)
            self._mirror = self._broadcast_state()
            return
        payload = None
        if self._is_master:
            recorder = _RecordingSerializer(serializer)
            try:
                self.actual_iterator.serialize(recorder)
                payload = (None, recorder.records)
            except Exception as exc:  # the other processes must not wait for the records forever
                payload = (f"{type(exc).__name__}: {exc}", None)
                self.communicator.bcast_obj(payload, root=self.rank_master)
                raise
        message, records = self.communicator.bcast_obj(payload, root=self.rank_master)
        if message is not None:
            raise RuntimeError(
                f"multi-node iterator: serializing the master (rank {self.rank_master}) failed: {message}"
            )
        if not self._is_master:
            for path, key, value in records:
                target = serializer
                for part in path:
                    target = target[part]
                target(key, value)
        self._mirror = self._broadcast_state()

    def finalize(self) -> None:
        self.actual_iterator.finalize()


class _RecordingSerializer:
    """Passes every ``(key, value)`` to ``serializer`` and records it (with the path of
    child serializers), so that other processes can write the same."""

    def __init__(self, serializer: Any, records: list[Any] | None = None, path: tuple[str, ...] = ()) -> None:
        self._serializer = serializer
        self.records: list[Any] = [] if records is None else records
        self._path = path

    def __getitem__(self, key: str) -> _RecordingSerializer:
        return _RecordingSerializer(self._serializer[key], self.records, (*self._path, key))

    def __call__(self, key: str, value: Any) -> Any:
        result = self._serializer(key, value)
        self.records.append((self._path, key, value.copy() if isinstance(value, numpy.ndarray) else value))
        return result

    def __getattr__(self, name: str) -> Any:
        # Flags a serializer carries (e.g. whether it only validates) stay readable.
        return getattr(self.__dict__["_serializer"], name)


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
