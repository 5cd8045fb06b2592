import threading

import numpy
import pytest

from chainer import datasets, iterators


def run(it, n):
    return [it.next() for _ in range(n)]


@pytest.fixture
def make():
    made = []

    def factory(*args, **kwargs):
        it = iterators.MultithreadIterator(*args, **kwargs)
        made.append(it)
        return it

    yield factory
    for it in made:
        it.finalize()


@pytest.mark.parametrize("n_threads, batch_size", [(1, 3), (4, 5), (3, 13)])
def test_same_batches_as_serial_iterator(make, n_threads, batch_size):
    ds = list(range(11))
    sampler = lambda seed: iterators.ShuffleOrderSampler(numpy.random.RandomState(seed))
    serial = iterators.SerialIterator(ds, batch_size, order_sampler=sampler(2))
    threaded = make(ds, batch_size, order_sampler=sampler(2), n_threads=n_threads)
    for _ in range(10):
        assert threaded.next() == serial.next()
        assert (threaded.epoch, threaded.is_new_epoch, threaded.current_position) == (
            serial.epoch,
            serial.is_new_epoch,
            serial.current_position,
        )
        assert threaded.previous_epoch_detail == pytest.approx(serial.previous_epoch_detail)


def test_without_repeat(make):
    it = make(list(range(5)), 2, repeat=False, shuffle=False, n_threads=2)
    assert list(it) == [[0, 1], [2, 3], [4]]
    assert it.epoch == 1 and it.epoch_detail == 1.0


def test_loads_in_several_threads(make):
    seen = set()
    barrier = threading.Barrier(3, timeout=5)

    def load(i):
        seen.add(threading.get_ident())
        if i < 3:
            barrier.wait()  # only passes if three examples load at once
        return i

    it = make(datasets.TransformDataset(list(range(6)), load), 3, shuffle=False, n_threads=3)
    assert it.next() == [0, 1, 2]
    assert len(seen) == 3


def test_dataset_exception_keeps_the_position(make):
    def load(i):
        if i == 4:
            raise KeyError("broken example")
        return i

    it = make(datasets.TransformDataset(list(range(8)), load), 3, shuffle=False, n_threads=2)
    assert it.next() == [0, 1, 2]
    with pytest.raises(KeyError, match="broken example"):
        it.next()
    assert it.current_position == 3
    with pytest.raises(KeyError):
        it.next()


def test_serialize_resumes(make, serializers):
    Serializer, Deserializer = serializers
    ds = list(range(9))
    it = make(ds, 2, order_sampler=iterators.ShuffleOrderSampler(numpy.random.RandomState(0)), n_threads=2)
    run(it, 5)
    saved = Serializer()
    it.serialize(saved)
    expected = run(it, 3)
    resumed = make(ds, 2, n_threads=2)
    resumed.serialize(Deserializer(saved.target))
    assert run(resumed, 3) == expected


def test_finalize_and_reuse(make):
    it = make(list(range(4)), 2, shuffle=False, n_threads=2)
    it.next()
    it.finalize()
    assert it._pool is None
    assert it.next() == [2, 3]


def test_bad_n_threads():
    with pytest.raises(ValueError, match="n_threads must be positive"):
        iterators.MultithreadIterator([1], 1, n_threads=0)
    with pytest.raises(TypeError, match="n_threads must be an int"):
        iterators.MultithreadIterator([1], 1, n_threads="2")
