"""The epoch bookkeeping shared by the built-in iterators, separate from loading data.

A :class:`State` is an immutable snapshot (position, epoch, order, ...). :class:`Planner`
computes which examples the next batch holds and the state after it, without touching
the dataset, so the prefetching iterators can plan batches ahead and still report the
state of the batches actually returned.
"""

from __future__ import annotations

import operator
from typing import Any, NamedTuple

import numpy

from chainer.dataset import iterator as iterator_module


class State(NamedTuple):
    current_position: int
    epoch: int
    is_new_epoch: bool
    previous_epoch_detail: float  # negative: before the first batch
    order: numpy.ndarray | None


Segment = Any  # a slice of the dataset (no order) or an array of dataset indices


def check_batch_size(batch_size: Any, where: str) -> int:
    if isinstance(batch_size, bool):
        raise TypeError(f"{where}: batch_size must be a positive int, got bool")
    try:
        value = operator.index(batch_size)
    except TypeError:
        raise TypeError(f"{where}: batch_size must be a positive int, got {type(batch_size).__name__}") from None
    if value <= 0:
        raise ValueError(f"{where}: batch_size must be positive, got {value}")
    return value


def choose_order_sampler(shuffle: Any, order_sampler: Any, where: str) -> Any:
    """Chainer 7's rule: ``shuffle=None`` and no sampler means shuffling."""
    from chainer.iterators import order_samplers

    if shuffle is not None:
        if order_sampler is not None:
            raise ValueError(
                f"{where}: shuffle is not None and a custom order_sampler is set; set shuffle to None to use "
                "the custom order sampler"
            )
        return order_samplers.ShuffleOrderSampler() if shuffle else None
    if order_sampler is None:
        return order_samplers.ShuffleOrderSampler()
    if not callable(order_sampler):
        raise TypeError(f"{where}: order_sampler must be callable, got {type(order_sampler).__name__}")
    return order_sampler


class Planner:
    """Plans batches over a dataset of ``size`` examples."""

    def __init__(self, size: int, batch_size: int, repeat: bool, order_sampler: Any, where: str) -> None:
        self.size = size
        self.batch_size = batch_size
        self.repeat = repeat
        self.order_sampler = order_sampler
        self.where = where
        if repeat and size == 0:
            raise ValueError(f"{where}: the dataset is empty, so a repeating iterator would never return a batch")

    def _sample(self, current_order: numpy.ndarray, position: int, first: bool = False) -> numpy.ndarray:
        order = numpy.asarray(self.order_sampler(current_order, position))
        if order.ndim != 1 or (order.size and order.dtype.kind not in "iu"):
            raise ValueError(
                f"{self.where}: the order sampler must return a 1-d integer array, got {order.dtype} of shape "
                f"{order.shape}"
            )
        if not first and order.shape != current_order.shape:
            raise ValueError(
                f"{self.where}: the order sampler returned an order of shape {order.shape}; the previous order "
                f"has shape {current_order.shape}"
            )
        if order.size and (order.min() < 0 or order.max() >= self.size):
            raise ValueError(
                f"{self.where}: the order sampler returned indices outside the dataset of {self.size} examples"
            )
        if first and self.repeat and order.size == 0:
            raise ValueError(f"{self.where}: the order sampler returned an empty order for a repeating iterator")
        return order

    def initial(self) -> State:
        order = None
        if self.order_sampler is not None:
            order = self._sample(numpy.arange(self.size), 0, first=True)
        return State(0, 0, False, -1.0, order)

    def epoch_detail(self, state: State) -> float:
        return state.epoch + state.current_position / self.epoch_size(state) if self.size else float(state.epoch)

    def epoch_size(self, state: State) -> int:
        return self.size if state.order is None else len(state.order)

    def finished(self, state: State) -> bool:
        return not self.repeat and state.epoch > 0

    def plan(self, state: State) -> tuple[list[Segment], State]:
        """The segments of the next batch and the state after it.

        The caller checks :meth:`finished` first (a non-repeating iterator stops after
        one epoch).
        """
        n = self.epoch_size(state)
        start = position = state.current_position
        epoch, order = state.epoch, state.order
        previous = self.epoch_detail(state)
        segments: list[Segment] = []
        remaining = self.batch_size
        is_new_epoch = False
        while True:
            take = min(remaining, n - position)
            if take > 0:
                stop = position + take
                segments.append(slice(position, stop) if order is None else order[position:stop])
                position, remaining = stop, remaining - take
            if position >= n:
                epoch += 1
                is_new_epoch = True
                if self.repeat and order is not None:
                    order = self._sample(order, start)
                position = 0
                if not self.repeat or remaining == 0:
                    break
            elif remaining == 0:
                break
        return segments, State(position, epoch, is_new_epoch, previous, order)

    def check_loaded(self, state: State) -> State:
        n = self.epoch_size(state)
        if not 0 <= state.current_position <= n:
            raise ValueError(
                f"{self.where}: the loaded current_position {state.current_position} is outside the dataset "
                f"of {n} examples"
            )
        if state.order is not None and (state.order.ndim != 1 or (state.order.size and state.order.max() >= self.size)):
            raise ValueError(f"{self.where}: the loaded order does not index a dataset of {self.size} examples")
        return state


def flat_indices(segments: list[Segment]) -> list[int]:
    out: list[int] = []
    for segment in segments:
        if isinstance(segment, slice):
            out.extend(range(segment.start, segment.stop))
        else:
            out.extend(segment.tolist())
    return out


def serialize_state(serializer: Any, state: State, planner: Planner) -> State:
    """Save ``state`` through ``serializer``, or load a state from it (Chainer 7's keys)."""
    position = serializer("current_position", state.current_position)
    epoch = serializer("epoch", state.epoch)
    is_new_epoch = serializer("is_new_epoch", state.is_new_epoch)
    order = state.order
    if order is not None:
        buffer = order.copy()
        try:
            order = serializer("order", buffer)
        except KeyError:
            order = serializer("_order", buffer)
        order = numpy.array(order)
    try:
        previous = float(serializer("previous_epoch_detail", state.previous_epoch_detail))
    except KeyError:
        # A snapshot of an older version: infer it from the position.
        n = planner.epoch_size(state) or 1
        previous = int(epoch) + (int(position) - planner.batch_size) / n
        previous = max(previous, 0.0) if int(epoch) + int(position) / n > 0 else -1.0
    loaded = State(int(position), int(epoch), bool(is_new_epoch), previous, order)
    return planner.check_loaded(loaded)


def same_state(a: State, b: State) -> bool:
    if a[:4] != b[:4]:
        return False
    if a.order is None or b.order is None:
        return a.order is None and b.order is None
    return bool(numpy.array_equal(a.order, b.order))


class StatefulIterator(iterator_module.Iterator):
    """The attributes of an iterator whose bookkeeping is a :class:`State` in ``_state``."""

    _state: State
    _planner: Planner

    def _set_state(self, state: State) -> None:
        self._state = state

    @property
    def current_position(self) -> int:
        """The position in the current epoch's order where the next batch starts."""
        return self._state.current_position

    @current_position.setter
    def current_position(self, value: int) -> None:
        self._set_state(self._state._replace(current_position=int(value)))

    @property
    def epoch(self) -> int:
        """The number of completed sweeps over the dataset."""
        return self._state.epoch

    @epoch.setter
    def epoch(self, value: int) -> None:
        self._set_state(self._state._replace(epoch=int(value)))

    @property
    def is_new_epoch(self) -> bool:
        """Whether the last batch finished an epoch."""
        return self._state.is_new_epoch

    @is_new_epoch.setter
    def is_new_epoch(self, value: bool) -> None:
        self._set_state(self._state._replace(is_new_epoch=bool(value)))

    @property
    def epoch_detail(self) -> float:
        """The epoch as a float: ``epoch + current_position / len(dataset)``."""
        return self._planner.epoch_detail(self._state)

    @property
    def previous_epoch_detail(self) -> float | None:
        """``epoch_detail`` before the last batch (``None`` before the first one)."""
        value = self._state.previous_epoch_detail
        return None if value < 0 else value

    @property
    def repeat(self) -> bool:
        """Whether the iterator goes on after the first epoch."""
        return self._planner.repeat

    @property
    def order_sampler(self) -> Any:
        return self._planner.order_sampler

    @property
    def _order(self) -> numpy.ndarray | None:
        return self._state.order

    @property
    def _previous_epoch_detail(self) -> float:
        return self._state.previous_epoch_detail
