"""MultiprocessIterator: the batches of SerialIterator, loaded by worker processes.

The failing datasets are built from picklable standard-library callables, so the tests
also hold under the 'spawn' and 'forkserver' start methods.
"""

import functools
import multiprocessing
import operator
import os
import time

import numpy
import pytest

from chainer import datasets, iterators

CALL = operator.methodcaller("__call__")


def run(it, n):
    return [it.next() for _ in range(n)]


def assert_batches_equal(actual, expected):
    assert len(actual) == len(expected)
    for batch_a, batch_e in zip(actual, expected):
        assert len(batch_a) == len(batch_e)
        for a, e in zip(batch_a, batch_e):
            if isinstance(e, tuple):
                for ai, ei in zip(a, e):
                    numpy.testing.assert_array_equal(ai, ei)
            else:
                numpy.testing.assert_array_equal(a, e)


@pytest.fixture
def make():
    """``make(dataset, batch_size, **kwargs)``; every iterator is finalized after the test."""
    made = []

    def factory(*args, **kwargs):
        it = iterators.MultiprocessIterator(*args, **kwargs)
        made.append(it)
        return it

    yield factory
    for it in made:
        it.finalize()


def sampler(seed):
    return iterators.ShuffleOrderSampler(numpy.random.RandomState(seed))


@pytest.mark.parametrize("n_processes, n_prefetch, batch_size", [(1, 1, 4), (2, 1, 3), (3, 3, 5), (2, 2, 11)])
def test_same_batches_as_serial_iterator(make, n_processes, n_prefetch, batch_size):
    x = numpy.random.default_rng(0).standard_normal((13, 3)).astype(numpy.float32)
    ds = datasets.TupleDataset(x, numpy.arange(13, dtype=numpy.int32))
    serial = iterators.SerialIterator(ds, batch_size, order_sampler=sampler(1))
    parallel = make(ds, batch_size, order_sampler=sampler(1), n_processes=n_processes, n_prefetch=n_prefetch)
    for _ in range(12):
        expected = serial.next()
        assert_batches_equal([parallel.next()], [expected])
        assert parallel.epoch == serial.epoch and parallel.is_new_epoch == serial.is_new_epoch
        assert parallel.epoch_detail == pytest.approx(serial.epoch_detail)
        assert parallel.previous_epoch_detail == pytest.approx(serial.previous_epoch_detail)
        assert parallel.current_position == serial.current_position


def test_without_repeat(make):
    ds = numpy.arange(10)
    it = make(ds, 4, repeat=False, shuffle=False, n_processes=2)
    assert list(it) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert it.epoch == 1 and it.epoch_detail == 1.0
    with pytest.raises(StopIteration):
        it.next()
    it.reset()
    assert it.next() == [0, 1, 2, 3]


def test_examples_round_trip_and_are_writable(make):
    examples = [
        ({"a": numpy.full((2, 2), i, numpy.float64), "s": f"x{i}"}, [i, None], numpy.int16(i)) for i in range(6)
    ]
    it = make(examples, 3, shuffle=False, n_processes=2, shared_mem=1 << 16)
    batch = it.next()
    for i, (d, lst, scalar) in enumerate(batch):
        numpy.testing.assert_array_equal(d["a"], numpy.full((2, 2), i))
        assert d["s"] == f"x{i}" and lst == [i, None] and scalar == i and scalar.dtype == numpy.int16
        d["a"][0, 0] = -1  # a copy, not a view of shared memory


@pytest.mark.parametrize("shared_mem", [None, 0, 8, 1 << 20])
def test_shared_memory_sizes_give_the_same_data(make, shared_mem):
    rng = numpy.random.default_rng(3)
    ds = [rng.standard_normal(int(n)) for n in rng.integers(1, 200, 20)]  # ragged: some fit, some not
    it = make(ds, 6, shuffle=False, n_processes=2, shared_mem=shared_mem, n_prefetch=2)
    expected = iterators.SerialIterator(ds, 6, shuffle=False)
    assert_batches_equal(run(it, 8), run(expected, 8))


def test_automatic_shared_memory_grows_with_examples(make):
    ds = [numpy.zeros(10) for _ in range(4)] + [numpy.zeros(5000) for _ in range(4)]
    it = make(ds, 2, shuffle=False, n_processes=1)
    run(it, 2)
    small = it._segment.slot_size
    assert small >= 80
    run(it, 4)
    assert it._segment.slot_size >= 40000 > small
    assert len(it._resources.segments) <= 2


def test_dataset_exception_is_raised_in_main_process(make):
    entries = [int] * 12
    entries[7] = functools.partial(operator.truediv, 1, 0)
    ds = datasets.TransformDataset(entries, CALL)
    it = make(ds, 4, shuffle=False, n_processes=2, dataset_timeout=5.0)
    assert it.next() == [0, 0, 0, 0]
    start = time.monotonic()
    with pytest.raises(ZeroDivisionError) as info:
        it.next()
    assert time.monotonic() - start < 5
    assert any("while loading example 7" in note for note in info.value.__notes__)
    # The iterator stays at the failed batch.
    assert it.current_position == 4 and it.epoch == 0
    with pytest.raises(ZeroDivisionError):
        it.next()


def test_dead_worker_is_reported_not_waited_for(make):
    entries = [int] * 8
    entries[5] = functools.partial(os._exit, 3)
    ds = datasets.TransformDataset(entries, CALL)
    it = make(ds, 4, shuffle=False, n_processes=2, dataset_timeout=None)
    assert it.next() == [0] * 4
    start = time.monotonic()
    with pytest.raises(
        RuntimeError, match=r"worker process \d+ exited with code 3 while loading the examples \[[\d, ]*5"
    ):
        it.next()
    assert time.monotonic() - start < 10
    assert it.current_position == 4
    # Fresh workers are started when the iterator is used again (and die again here).
    with pytest.raises(RuntimeError, match="exited with code 3"):
        it.next()


def test_worker_killed_by_a_signal(make):
    if not hasattr(os, "kill") or os.name == "nt":
        pytest.skip("POSIX signals")
    entries = [int] * 4
    entries[2] = functools.partial(time.sleep, 30)
    ds = datasets.TransformDataset(entries, CALL)
    it = make(ds, 4, shuffle=False, n_processes=1, dataset_timeout=None)
    it._fill()
    for worker in it._resources.pool._workers:
        os.kill(worker.process.pid, 9)
    with pytest.raises(RuntimeError, match="was killed by signal SIGKILL"):
        it.next()


def test_slow_dataset_gives_timeout_warning(make):
    entries = [int] * 4
    entries[1] = functools.partial(time.sleep, 0.4)
    ds = datasets.TransformDataset(entries, CALL)
    it = make(ds, 2, shuffle=False, n_processes=1, dataset_timeout=0.05)
    with pytest.warns(iterators.MultiprocessIterator.TimeoutWarning, match="more than 0.05 seconds"):
        batch = it.next()
    assert batch == [0, None]
    assert issubclass(iterators.MultiprocessIterator.TimeoutWarning, RuntimeWarning)


def test_maxtasksperchild_replaces_workers(make):
    ds = numpy.arange(9)
    it = make(ds, 3, shuffle=False, n_processes=2, maxtasksperchild=1)
    expected = iterators.SerialIterator(ds, 3, shuffle=False)
    pids = set()
    for _ in range(6):
        assert it.next() == expected.next()
        pids.update(w.process.pid for w in it._resources.pool._workers)
    assert len(pids) > 2


def test_serialize_mid_epoch_resumes_the_same_batches(make, serializers):
    Serializer, Deserializer = serializers
    ds = numpy.arange(20)
    it = make(ds, 3, order_sampler=sampler(4), n_processes=2, n_prefetch=3)
    run(it, 9)  # epoch 1, position 7, with batches already prefetched beyond
    saved = Serializer()
    it.serialize(saved)
    assert saved.target["current_position"] == 7 and saved.target["epoch"] == 1
    expected = run(it, 4)  # positions 7..19 of the saved epoch's order
    resumed = make(ds, 3, order_sampler=sampler(99), n_processes=2)
    resumed.next()
    resumed.serialize(Deserializer(saved.target))
    assert resumed.current_position == 7 and resumed.epoch == 1
    assert run(resumed, 4) == expected


def test_serializing_does_not_disturb_the_stream(make, serializers):
    Serializer, _ = serializers
    ds = numpy.arange(10)
    a = make(ds, 3, order_sampler=sampler(0), n_processes=2, n_prefetch=2)
    b = iterators.SerialIterator(ds, 3, order_sampler=sampler(0))
    for _ in range(8):
        a.serialize(Serializer())
        assert a.next() == b.next()


def test_finalize_stops_workers_and_allows_reuse(make):
    it = make(numpy.arange(6), 2, shuffle=False, n_processes=2)
    it.next()
    workers = [w.process for w in it._resources.pool._workers]
    assert all(p.is_alive() for p in workers)
    it.finalize()
    assert not any(p.is_alive() for p in workers)
    assert it._resources.segments == []
    assert it.next() == [2, 3]  # fresh workers, same position
    it.finalize()
    # As in Chainer 7, a finalized iterator cannot go back to the start.
    with pytest.raises(NotImplementedError, match=r"reset\(\) after finalize\(\) is not supported"):
        it.reset()
    with iterators.MultiprocessIterator(numpy.arange(4), 2, shuffle=False, n_processes=1) as ctx:
        assert ctx.next() == [0, 1]
    assert ctx._resources.pool is None


@pytest.mark.parametrize("shared_mem", [None, 1 << 16])
def test_pickled_iterator_goes_on_from_the_last_batch_returned(make, shared_mem):
    import pickle

    it = make(numpy.arange(6), 2, shuffle=False, n_processes=2, n_prefetch=2, shared_mem=shared_mem)
    assert it.next() == [0, 1] and it.next() == [2, 3]
    copy = pickle.loads(pickle.dumps(it))
    try:
        assert (copy.epoch, copy.current_position, copy.is_new_epoch) == (0, 4, False)
        assert copy.previous_epoch_detail == pytest.approx(2 / 6)
        # The copy loads its own batches with its own workers; the original is unaffected.
        assert copy.next() == [4, 5] and copy.is_new_epoch and copy.epoch_detail == 1.0
        assert it.next() == [4, 5]
    finally:
        copy.finalize()


def test_garbage_collection_stops_workers():
    it = iterators.MultiprocessIterator(numpy.arange(6), 2, n_processes=1)
    it.next()
    process = it._resources.pool._workers[0].process
    del it
    import gc

    gc.collect()
    process.join(5)
    assert not process.is_alive()


def test_bad_arguments():
    with pytest.raises(ValueError, match="n_processes must be positive"):
        iterators.MultiprocessIterator([1], 1, n_processes=0)
    with pytest.raises(ValueError, match="n_prefetch must be positive"):
        iterators.MultiprocessIterator([1], 1, n_prefetch=0)
    with pytest.raises(ValueError, match="shared_mem must be a non-negative int or None"):
        iterators.MultiprocessIterator([1], 1, shared_mem=-1)
    with pytest.raises(ValueError, match="dataset_timeout must be a positive number or None"):
        iterators.MultiprocessIterator([1], 1, dataset_timeout=0)
    with pytest.raises(TypeError, match="maxtasksperchild must be a positive int or None"):
        iterators.MultiprocessIterator([1], 1, maxtasksperchild=1.5)
    with pytest.raises(ValueError, match="shuffle is not None and a custom order_sampler"):
        iterators.MultiprocessIterator([1], 1, shuffle=False, order_sampler=sampler(0))


def test_no_worker_left_behind():
    assert [p for p in multiprocessing.active_children() if p.name == "MultiprocessIterator-worker"] == []
