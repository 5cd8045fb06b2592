import numpy
import pytest

from chainer import datasets, iterators


def run(it, n):
    return [it.next() for _ in range(n)]


@pytest.mark.parametrize("n, batch_size", [(10, 3), (9, 3), (5, 7), (1, 1), (4, 4)])
def test_epoch_accounting_with_repeat(n, batch_size):
    it = iterators.SerialIterator(list(range(n)), batch_size, shuffle=False)
    assert it.epoch == 0 and it.epoch_detail == 0.0 and it.previous_epoch_detail is None and not it.is_new_epoch
    consumed = 0
    for _ in range(3 * n):
        before = it.epoch_detail
        batch = it.next()
        # The stream is 0, 1, ..., n-1, 0, 1, ...: a batch crossing an epoch end wraps.
        assert batch == [(consumed + k) % n for k in range(batch_size)]
        previous_epoch = consumed // n
        consumed += batch_size
        assert it.epoch == consumed // n
        assert it.is_new_epoch == (consumed // n > previous_epoch)
        assert it.current_position == consumed % n
        assert it.epoch_detail == pytest.approx(consumed // n + (consumed % n) / n)
        assert it.previous_epoch_detail == pytest.approx(before)


@pytest.mark.parametrize("n, batch_size", [(10, 3), (9, 3), (5, 7)])
def test_epoch_accounting_without_repeat(n, batch_size):
    it = iterators.SerialIterator(list(range(n)), batch_size, repeat=False, shuffle=False)
    batches = list(it)
    expected = [list(range(i, min(i + batch_size, n))) for i in range(0, n, batch_size)]
    assert batches == expected
    assert it.epoch == 1 and it.is_new_epoch and it.epoch_detail == 1.0 and it.current_position == 0
    with pytest.raises(StopIteration):
        it.next()
    it.reset()
    assert it.epoch == 0 and it.next() == expected[0]


def test_shuffled_epochs_are_permutations():
    n, batch_size = 10, 4
    it = iterators.SerialIterator(list(range(n)), batch_size)
    stream = sum(run(it, 10), [])
    for epoch in range(4):
        assert sorted(stream[epoch * n : (epoch + 1) * n]) == list(range(n))
    assert stream[:n] != list(range(n)) or stream[n : 2 * n] != list(range(n))


def test_default_shuffle_follows_numpy_global_seed():
    numpy.random.seed(3)
    a = run(iterators.SerialIterator(list(range(20)), 5), 8)
    numpy.random.seed(3)
    b = run(iterators.SerialIterator(list(range(20)), 5), 8)
    assert a == b
    numpy.random.seed(3)
    first_order = numpy.random.permutation(20)
    assert a[0] == first_order[:5].tolist()


def test_order_sampler():
    it = iterators.SerialIterator(
        list("abcdef"), 4, order_sampler=lambda order, position: numpy.arange(len(order))[::-1]
    )
    assert run(it, 3) == [list("fedc"), list("bafe"), list("dcba")]
    with pytest.raises(ValueError, match="shuffle is not None and a custom order_sampler is set"):
        iterators.SerialIterator([1], 1, shuffle=True, order_sampler=iterators.ShuffleOrderSampler())
    shrinking = iterators.SerialIterator([1, 2, 3], 1, order_sampler=lambda order, position: order[1:])
    assert shrinking.next() == [2]  # a sampler may select a subset: the epoch is its order
    assert shrinking.epoch_detail == 0.5
    with pytest.raises(ValueError, match=r"order of shape \(1,\); the previous order has shape \(2,\)"):
        shrinking.next()
    with pytest.raises(ValueError, match="indices outside the dataset of 3 examples"):
        iterators.SerialIterator([1, 2, 3], 2, order_sampler=lambda order, position: order + 1)
    with pytest.raises(ValueError, match="must return a 1-d integer array"):
        iterators.SerialIterator([1, 2, 3], 2, order_sampler=lambda order, position: order * 0.5)


def test_array_and_tuple_datasets():
    x = numpy.arange(10).reshape(5, 2)
    it = iterators.SerialIterator(x, 2, shuffle=False)
    batch = it.next()
    assert isinstance(batch, list) and len(batch) == 2
    numpy.testing.assert_array_equal(batch[1], [2, 3])
    batches = run(it, 2)
    numpy.testing.assert_array_equal(numpy.stack(batches[1]), [[8, 9], [0, 1]])
    it = iterators.SerialIterator(datasets.TupleDataset(x, numpy.arange(5)), 3, repeat=False, shuffle=False)
    assert [t for batch in it for _, t in batch] == [0, 1, 2, 3, 4]


def test_serialize_resumes_the_same_order(serializers):
    Serializer, Deserializer = serializers
    numpy.random.seed(0)
    it = iterators.SerialIterator(list(range(11)), 3)
    run(it, 5)
    saved = Serializer()
    it.serialize(saved)
    assert set(saved.target) == {"current_position", "epoch", "is_new_epoch", "order", "previous_epoch_detail"}
    expected = run(it, 2)  # positions 4-7 and 7-10 of the saved epoch's order
    expected_detail = it.epoch_detail

    resumed = iterators.SerialIterator(list(range(11)), 3)
    resumed.serialize(Deserializer(saved.target))
    assert resumed.epoch == 1 and resumed.current_position == 4
    assert resumed.previous_epoch_detail == pytest.approx(1 + 1 / 11)
    assert run(resumed, 2) == expected
    assert resumed.epoch_detail == pytest.approx(expected_detail)


def test_serialize_with_a_seeded_sampler_resumes_identically(serializers):
    Serializer, Deserializer = serializers

    def make():
        return iterators.SerialIterator(
            list(range(10)), 3, order_sampler=iterators.ShuffleOrderSampler(numpy.random.RandomState(5))
        )

    it = make()
    run(it, 4)  # into the second epoch, at position 2
    saved = Serializer()
    it.serialize(saved)
    expected = run(it, 2)  # the rest of the saved epoch's order
    resumed = make()
    resumed.serialize(Deserializer(saved.target))
    assert run(resumed, 2) == expected
    assert resumed.epoch_detail == pytest.approx(1.8)


def test_serialize_old_snapshots(serializers):
    _, Deserializer = serializers
    it = iterators.SerialIterator(list(range(10)), 4)
    order = numpy.arange(10)[::-1].copy()
    old = {"current_position": 8, "epoch": 2, "is_new_epoch": False, "_order": order}
    it.serialize(Deserializer(old))
    assert it.previous_epoch_detail == pytest.approx(2.4)
    assert it.next() == [1, 0] + it._order[:2].tolist()
    start = {"current_position": 0, "epoch": 0, "is_new_epoch": False, "order": numpy.arange(10)}
    it.serialize(Deserializer(start))
    assert it.previous_epoch_detail is None


def test_serialize_rejects_inconsistent_state(serializers):
    _, Deserializer = serializers
    it = iterators.SerialIterator(list(range(4)), 2, shuffle=False)
    with pytest.raises(ValueError, match="current_position 9 is outside the dataset of 4 examples"):
        it.serialize(
            Deserializer({"current_position": 9, "epoch": 0, "is_new_epoch": False, "previous_epoch_detail": -1.0})
        )


def test_state_attributes_are_settable():
    it = iterators.SerialIterator(list(range(6)), 2, shuffle=False)
    it.current_position = 4
    it.epoch = 2
    assert it.next() == [4, 5] and it.epoch == 3 and it.is_new_epoch
    assert it.repeat and it.batch_size == 2


def test_bad_arguments():
    with pytest.raises(ValueError, match="batch_size must be positive"):
        iterators.SerialIterator([1], 0)
    with pytest.raises(TypeError, match="batch_size must be a positive int, got float"):
        iterators.SerialIterator([1], 1.5)
    with pytest.raises(ValueError, match="the dataset is empty"):
        iterators.SerialIterator([], 1)
    with pytest.raises(StopIteration):
        iterators.SerialIterator([], 1, repeat=False).next()
