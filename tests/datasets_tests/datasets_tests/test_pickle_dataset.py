import os

import numpy
import pytest

import chainer
from chainer import datasets

EXAMPLES = [numpy.arange(3), {"label": 1, "text": "x"}, ("tuple", 2.5), None, list(range(100))]


def check(ds):
    assert len(ds) == len(EXAMPLES)
    for i in (4, 0, 2, 1, 3):
        actual, expected = ds[i], EXAMPLES[i]
        if isinstance(expected, numpy.ndarray):
            numpy.testing.assert_array_equal(actual, expected)
        else:
            assert actual == expected


def test_write_then_read(tmp_path):
    path = str(tmp_path / "data.pkl")
    with datasets.open_pickle_dataset_writer(path) as writer:
        for example in EXAMPLES:
            writer.write(example)
        writer.flush()
        assert not os.path.exists(path)  # appears only when complete
    assert os.path.exists(path)
    with datasets.open_pickle_dataset(path) as ds:
        check(ds)
        assert ds[1:3] == EXAMPLES[1:3]


def test_failed_write_leaves_no_file(tmp_path):
    path = tmp_path / "data.pkl"
    with pytest.raises(RuntimeError):
        with datasets.open_pickle_dataset_writer(str(path)) as writer:
            writer.write(1)
            raise RuntimeError("interrupted")
    assert list(tmp_path.iterdir()) == []


def test_file_objects_and_protocol(tmp_path):
    path = tmp_path / "data.pkl"
    with open(path, "wb") as f:
        writer = datasets.PickleDatasetWriter(f, protocol=2)
        for example in EXAMPLES:
            writer.write(example)
    with open(path, "rb") as f:
        check(datasets.PickleDataset(f))
    with pytest.raises(ValueError, match="protocol must be in"):
        datasets.PickleDatasetWriter(None, protocol=99)
    with pytest.raises(TypeError, match="seekable binary file"):
        datasets.PickleDataset(b"data")


def test_reading_from_worker_processes(tmp_path):
    path = str(tmp_path / "data.pkl")
    with datasets.open_pickle_dataset_writer(path) as writer:
        for i in range(10):
            writer.write((numpy.full(2, i), i))
    with datasets.open_pickle_dataset(path) as ds:
        it = chainer.iterators.MultiprocessIterator(ds, 4, repeat=False, shuffle=False, n_processes=2)
        try:
            labels = [t for batch in it for _, t in batch]
        finally:
            it.finalize()
    assert labels == list(range(10))


class ForkAwareReader:
    """A reader over bytes that records, in shared memory, which process called after_fork."""

    def __init__(self, data):
        import io
        import multiprocessing

        self._io = io.BytesIO(data)
        self.calls = multiprocessing.Value("i", 0)
        self.caller = multiprocessing.Value("i", -1)

    def __getattr__(self, name):
        return getattr(self._io, name)

    def after_fork(self):
        with self.calls.get_lock():
            self.calls.value += 1
            self.caller.value = os.getpid()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_tells_the_reader(tmp_path):
    import io
    import multiprocessing

    buffer = io.BytesIO()
    writer = datasets.PickleDatasetWriter(buffer)
    writer.write("x")
    writer.flush()
    reader = ForkAwareReader(buffer.getvalue())
    ds = datasets.PickleDataset(reader)
    child = multiprocessing.get_context("fork").Process()
    child.start()
    child.join()
    # The parent's reader is untouched; the child's copy was told, in the child.
    assert reader.calls.value == 1 and reader.caller.value == child.pid
    ds.close()
    child = multiprocessing.get_context("fork").Process()
    child.start()
    child.join()
    # A closed dataset's reader is not reopened.
    assert reader.calls.value == 1


def test_file_reader_reopens_after_fork_and_pickles_as_its_path(tmp_path, monkeypatch):
    from chainer.datasets import pickle_dataset

    path = str(tmp_path / "d.pkl")
    with datasets.open_pickle_dataset_writer(path) as writer:
        writer.write(41)
        writer.write(42)
    opened = []
    real_open = open

    def recording_open(*args):
        opened.append(args)
        return real_open(*args)

    monkeypatch.setattr(pickle_dataset, "open", recording_open, raising=False)
    reader = pickle_dataset._FileReader(path)
    first = reader._file
    reader.after_fork()
    assert first.closed and opened == [(path, "rb"), (path, "rb")]
    import pickle

    clone = pickle.loads(pickle.dumps(reader))
    assert opened[-1] == (path, "rb") and len(opened) == 3
    ds = datasets.PickleDataset(clone)
    assert ds[1] == 42
    ds.close()
    reader.close()
