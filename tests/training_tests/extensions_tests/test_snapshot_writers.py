"""Snapshot writers: every kind writes a loadable file holding the state at call time."""

import os

import numpy
import pytest
from _training_testlib import MLP, make_trainer

from chainer import serializers
from chainer.training import extensions
from chainer.training.extensions import _snapshot, snapshot_writers


def make_model(value):
    model = MLP()
    model(numpy.ones((1, 5), numpy.float32))
    for p in model.params():
        p.array[...] = value
    return model


WRITERS = [
    snapshot_writers.SimpleWriter,
    snapshot_writers.ThreadWriter,
    snapshot_writers.ProcessWriter,
    snapshot_writers.ThreadQueueWriter,
    snapshot_writers.ProcessQueueWriter,
]


@pytest.mark.parametrize("writer_class", WRITERS)
def test_writers_save_the_state_of_the_call(tmp_path, writer_class):
    writer = writer_class()
    model = make_model(1.0)
    for i in range(3):
        target = _snapshot._CapturedState(model) if writer.asynchronous else model
        writer(f"snap{i}", str(tmp_path), target)
        for p in model.params():
            p.array[...] += 1  # the training goes on
    writer.finalize()
    for i in range(3):
        loaded = make_model(0.0)
        serializers.load_npz(str(tmp_path / f"snap{i}"), loaded)
        for p in loaded.params():
            numpy.testing.assert_array_equal(p.array, 1.0 + i)
    assert sorted(os.listdir(tmp_path)) == ["snap0", "snap1", "snap2"]


@pytest.mark.parametrize("writer_class", WRITERS)
def test_writers_in_a_trainer(tmp_path, writer_class):
    # The trainer finalizes the writer when the training ends: the last snapshot is there
    # and resumes a fresh trainer at the iteration it was taken.
    trainer = make_trainer(tmp_path, stop=(2, "epoch"))
    trainer.extend(extensions.snapshot(writer=writer_class()), trigger=(2, "epoch"))
    trainer.run()
    out = tmp_path / "result"
    assert os.listdir(out) == [f"snapshot_iter_{trainer.updater.iteration}"]
    fresh = make_trainer(tmp_path)
    serializers.load_npz(str(out / f"snapshot_iter_{trainer.updater.iteration}"), fresh)
    assert fresh.updater.iteration == trainer.updater.iteration


def test_savefun_keywords(tmp_path):
    calls = []

    def savefun(path, obj, compression):
        calls.append(compression)
        serializers.save_npz(path, obj, compression=compression)

    snapshot_writers.SimpleWriter(savefun=savefun, compression=False)("s", str(tmp_path), make_model(1.0))
    assert calls == [False]


def test_thread_writer_reports_a_failed_write(tmp_path):
    def failing(path, obj):
        raise OSError("no space")

    writer = snapshot_writers.ThreadWriter(savefun=failing)
    writer("s", str(tmp_path), make_model(1.0))
    with pytest.raises(RuntimeError, match="writing the snapshot 's' failed"):
        writer.finalize()
    assert os.listdir(tmp_path) == []


def test_queue_writer_reports_a_failed_write_and_goes_on(tmp_path, capsys):
    def failing(path, obj):
        if path.endswith("bad"):
            raise OSError("no space")
        serializers.save_npz(path, obj)

    writer = snapshot_writers.ThreadQueueWriter(savefun=failing)
    writer("bad", str(tmp_path), make_model(1.0))
    writer("good", str(tmp_path), make_model(1.0))
    with pytest.raises(RuntimeError, match="could not be written"):
        writer.finalize()
    assert os.listdir(tmp_path) == ["good"]
    assert "writing the snapshot 'bad' failed" in capsys.readouterr().err
    with pytest.raises(RuntimeError, match="was finalized"):
        writer("late", str(tmp_path), make_model(1.0))


def test_custom_worker_and_queue_items(tmp_path):
    # A StandardWriter with workers of its own (no exit status), and a queue whose items
    # are any sequence (task, filename, outdir, target), as Chainer 7 accepted.
    events = []

    class Worker:
        def __init__(self, filename):
            self.filename = filename

        def start(self):
            events.append(("start", self.filename))

        def join(self):
            events.append(("join", self.filename))

    class Custom(snapshot_writers.StandardWriter):
        def create_worker(self, filename, outdir, target, **kwds):
            return Worker(filename)

    writer = Custom()
    writer("a", str(tmp_path), None)
    writer("b", str(tmp_path), None)
    writer.finalize()
    assert events == [("start", "a"), ("join", "a"), ("start", "b"), ("join", "b")]

    class Items:
        def __init__(self, items):
            self.items = list(items)
            self.done = 0

        def get(self):
            return self.items.pop(0)

        def task_done(self):
            self.done += 1

    written = []
    queue = Items([(lambda *args: written.append(args), "x", "dir", "obj"), None])
    queue_writer = snapshot_writers.ThreadQueueWriter()
    queue_writer.consume(queue)
    queue_writer.finalize()
    assert written == [("x", "dir", "obj")] and queue.done == 2


def test_savefun_that_writes_nothing(tmp_path):
    writer = snapshot_writers.SimpleWriter(savefun=lambda path, obj: None)
    with pytest.raises(RuntimeError, match="wrote nothing"):
        writer("s", str(tmp_path), make_model(1.0))
    assert os.listdir(tmp_path) == []


def test_custom_writer(tmp_path):
    class Recording(snapshot_writers.Writer):
        def __init__(self):
            super().__init__()
            self.calls = []

        def __call__(self, filename, outdir, target):
            self.calls.append(filename)
            self.save(filename, outdir, target, serializers.save_npz)

    writer = Recording()
    writer("a", str(tmp_path), make_model(2.0))
    assert writer.calls == ["a"] and os.listdir(tmp_path) == ["a"]
    with pytest.raises(NotImplementedError):
        snapshot_writers.Writer()("a", str(tmp_path), None)


class _Mixed:
    def __init__(self, text="", none=0, array=None):
        self.text, self.none, self.array = text, none, array

    def serialize(self, serializer):
        self.text = serializer("text", self.text)
        self.none = serializer("none", self.none)
        self.array = serializer["sub"]("array", self.array)


@pytest.mark.parametrize("fmt", ["npz", "hdf5"])
def test_captured_state_keeps_strings_and_none(tmp_path, fmt):
    if fmt == "hdf5":
        pytest.importorskip("h5py")
    save = serializers.save_npz if fmt == "npz" else serializers.save_hdf5
    load = serializers.load_npz if fmt == "npz" else serializers.load_hdf5
    source = _Mixed('["a", 1]', None, numpy.arange(3.0))
    captured = _snapshot._CapturedState(source)
    source.array[...] = -1  # later changes do not reach the capture
    writer = snapshot_writers.ThreadWriter(savefun=save)
    writer("s", str(tmp_path), captured)
    writer.finalize()
    loaded = _Mixed(array=numpy.zeros(3))
    load(str(tmp_path / "s"), loaded)
    assert loaded.text == '["a", 1]'
    assert loaded.none is None
    numpy.testing.assert_array_equal(loaded.array, [0.0, 1.0, 2.0])
