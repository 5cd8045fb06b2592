"""chainer.iterators._statemachine: the next batch of an iterator state, as Chainer 7 had it."""

import numpy
import pytest

from chainer.iterators._statemachine import IteratorState, iterator_statemachine


def test_walks_an_epoch_in_dataset_order_and_wraps_when_repeating():
    state = IteratorState(0, 0, False, None)
    batches = []
    for _ in range(3):
        state, indices = iterator_statemachine(state, 2, True, None, 5)
        batches.append((indices.tolist(), state.epoch, state.is_new_epoch))
    # 5 examples in batches of 2: the third batch ends epoch 0 and takes the first of epoch 1.
    assert batches == [([0, 1], 0, False), ([2, 3], 0, False), ([4, 0], 1, True)]
    assert state.current_position == 1


def test_non_repeating_stops_after_one_epoch():
    state = IteratorState(0, 0, False, None)
    state, indices = iterator_statemachine(state, 4, False, None, 3)
    assert indices.tolist() == [0, 1, 2] and state.epoch == 1
    assert iterator_statemachine(state, 4, False, None, 3) == (state, None)


def test_order_and_sampler_give_the_indices():
    calls = []

    def reverse(order, position):
        calls.append(position)
        return order[::-1].copy()

    state = IteratorState(0, 0, False, numpy.array([2, 0, 1]))
    state, indices = iterator_statemachine(state, 2, True, reverse, 3)
    assert indices.tolist() == [2, 0] and calls == []
    state, indices = iterator_statemachine(state, 2, True, reverse, 3)
    # The last of the old order, then the first of the new (reversed) one.
    assert indices.tolist() == [1, 1] and state.order.tolist() == [1, 0, 2] and calls == [2]


def test_bad_batch_size():
    with pytest.raises(ValueError, match="iterator_statemachine: batch_size must be positive"):
        iterator_statemachine(IteratorState(0, 0, False, None), 0, True, None, 3)
