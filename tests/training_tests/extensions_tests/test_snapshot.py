"""snapshot and snapshot_object: files, names, retention, autoload, errors, atomicity."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy
import pytest
from _training_testlib import MLP, Classifier, make_trainer

from chainer import serializers, training
from chainer.training import extensions
from chainer.training.extensions import snapshot_writers

TESTLIB_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def params(model):
    return {name: p.array.copy() for name, p in model.namedparams()}


def assert_same_params(a, b):
    pa, pb = params(a), params(b)
    assert pa.keys() == pb.keys()
    for name in pa:
        numpy.testing.assert_array_equal(pa[name], pb[name], err_msg=name)


def model_of(trainer):
    return trainer.updater.get_optimizer("main").target


def test_snapshot_defaults():
    ext = extensions.snapshot()
    assert ext.trigger == (1, "epoch")
    assert ext.priority == training.PRIORITY_SNAPSHOT
    assert ext.default_name == "_Snapshot"
    assert ext.filename == "snapshot_iter_{.updater.iteration}"
    assert isinstance(ext.writer, snapshot_writers.SimpleWriter)


def test_trainer_snapshot_loads_into_a_fresh_trainer(tmp_path):
    trainer = make_trainer(tmp_path, stop=(2, "epoch"))
    trainer.extend(extensions.snapshot())
    trainer.run()
    out = tmp_path / "result"
    assert sorted(os.listdir(out)) == ["snapshot_iter_10", "snapshot_iter_5"]
    fresh = make_trainer(tmp_path, stop=(2, "epoch"))
    serializers.load_npz(str(out / "snapshot_iter_10"), fresh)
    assert fresh.updater.iteration == 10
    assert_same_params(model_of(fresh), model_of(trainer))


def test_snapshot_object_with_epoch_names(tmp_path):
    trainer = make_trainer(tmp_path, stop=(2, "epoch"))
    model = model_of(trainer)
    trainer.extend(extensions.snapshot_object(model.predictor, "model_epoch-{.updater.epoch}"))
    trainer.run()
    loaded = MLP()
    serializers.load_npz(str(tmp_path / "result" / "model_epoch-2"), loaded)
    assert_same_params(loaded, model.predictor)
    assert (tmp_path / "result" / "model_epoch-1").exists()


def test_callable_filename_and_condition(tmp_path):
    trainer = make_trainer(tmp_path, stop=(4, "iteration"))
    flags = iter([True, False, True, False])
    trainer.extend(
        extensions.snapshot(filename=lambda t: f"it{t.updater.iteration}.npz", condition=lambda: next(flags)),
        trigger=(1, "iteration"),
    )
    trainer.run()
    assert sorted(os.listdir(tmp_path / "result")) == ["it1.npz", "it3.npz"]


@pytest.mark.parametrize("writer", [None, snapshot_writers.ThreadWriter(), snapshot_writers.ThreadQueueWriter()])
def test_n_retains(tmp_path, writer):
    trainer = make_trainer(tmp_path, stop=(6, "iteration"))
    trainer.extend(extensions.snapshot(n_retains=2, writer=writer), trigger=(1, "iteration"))
    trainer.run()
    assert sorted(os.listdir(tmp_path / "result")) == ["snapshot_iter_5", "snapshot_iter_6"]


def test_snapshot_on_error(tmp_path):
    trainer = make_trainer(tmp_path, stop=(10, "epoch"))
    trainer.extend(extensions.snapshot(snapshot_on_error=True, filename="crash"))

    def crash(trainer):
        if trainer.updater.iteration == 3:
            raise RuntimeError("crash")

    trainer.extend(crash)
    with pytest.raises(RuntimeError, match="crash"):
        trainer.run(show_loop_exception_msg=False)
    fresh = make_trainer(tmp_path)
    serializers.load_npz(str(tmp_path / "result" / "crash"), fresh)
    assert fresh.updater.iteration == 3


def test_autoload_takes_the_latest_snapshot(tmp_path):
    trainer = make_trainer(tmp_path, stop=(3, "epoch"))
    trainer.extend(extensions.snapshot())
    trainer.run()
    out = tmp_path / "result"
    # A leftover of an interrupted write, and an unrelated file: both ignored.
    (out / ".snapshot_iter_99.abc.tmp").mkdir()
    (out / "notes.txt").write_text("x")
    os.utime(out / "snapshot_iter_10", ns=(time.time_ns() + 10**9,) * 2)  # the newest by time
    resumed = make_trainer(tmp_path, stop=(3, "epoch"))
    resumed.extend(extensions.snapshot(autoload=True))
    resumed.run()
    # Resumed at iteration 10 (not 15), so it ran one more epoch.
    assert resumed.updater.iteration == 15
    log_iterations = sorted(int(n.split("_")[-1]) for n in os.listdir(out) if n.startswith("snapshot_iter_"))
    assert log_iterations == [5, 10, 15]


def test_autoload_without_snapshot_starts_fresh(tmp_path):
    trainer = make_trainer(tmp_path, stop=(1, "epoch"))
    trainer.extend(extensions.snapshot(autoload=True))
    trainer.run()
    assert trainer.updater.iteration == 5


def test_autoload_of_a_corrupt_file_is_a_clear_error(tmp_path):
    out = tmp_path / "result"
    out.mkdir()
    (out / "snapshot_iter_5").write_bytes(b"not a zip")
    trainer = make_trainer(tmp_path, stop=(1, "epoch"))
    trainer.extend(extensions.snapshot(autoload=True))
    with pytest.raises(RuntimeError, match="could not resume from .*snapshot_iter_5"):
        trainer.run(show_loop_exception_msg=False)


def test_hdf5_savefun_and_autoload(tmp_path):
    pytest.importorskip("h5py")
    trainer = make_trainer(tmp_path, stop=(1, "epoch"))
    trainer.extend(extensions.snapshot(savefun=serializers.save_hdf5, filename="snap.h5"))
    trainer.run()
    resumed = make_trainer(tmp_path, stop=(2, "epoch"))
    resumed.extend(extensions.snapshot(savefun=serializers.save_hdf5, filename="snap.h5", autoload=True))
    resumed.run()
    assert resumed.updater.iteration == 10


def test_argument_errors():
    with pytest.raises(TypeError, match="savefun or writer, not both"):
        extensions.snapshot(savefun=serializers.save_npz, writer=snapshot_writers.SimpleWriter())
    with pytest.raises(ValueError, match="trigger argument was removed"):
        extensions.snapshot(trigger=(1, "epoch"))
    with pytest.raises(TypeError, match="unexpected keyword"):
        extensions.snapshot_object(Classifier(MLP()), "m", n_retain=3)
    with pytest.raises(TypeError, match="condition must be callable"):
        extensions.snapshot(condition=True)
    with pytest.raises(ValueError, match="autoload needs a filename format"):
        extensions.snapshot(filename=lambda t: "x", autoload=True)


KILLED_WRITER = textwrap.dedent(
    """
    import os, sys, time
    sys.path.insert(0, {testlib!r})
    import numpy
    from _training_testlib import MLP
    from chainer import serializers
    from chainer.training.extensions import snapshot_writers

    out = {out!r}
    model = MLP()
    model(numpy.ones((1, 5), numpy.float32))
    writer = snapshot_writers.SimpleWriter()
    writer("snapshot", out, model)
    numpy.save(os.path.join(out, "first_W.npy"), model.l1.W.array)

    def slow_save(path, obj):
        with open(path, "wb") as f:
            f.write(b"PK partial snapshot")
            f.flush()
            os.fsync(f.fileno())
        open(os.path.join(out, "half_written"), "w").close()
        time.sleep(60)

    model.l1.W.array[...] = 42
    snapshot_writers.SimpleWriter(savefun=slow_save)("snapshot", out, model)
    """
)


def test_writer_killed_mid_write_leaves_the_previous_snapshot(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    script = KILLED_WRITER.format(testlib=TESTLIB_DIR, out=str(out))
    proc = subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while not (out / "half_written").exists():
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.monotonic() < deadline, "the writer never started its second snapshot"
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL
    model = MLP()
    model(numpy.ones((1, 5), numpy.float32))
    serializers.load_npz(str(out / "snapshot"), model)
    numpy.testing.assert_array_equal(model.l1.W.array, numpy.load(out / "first_W.npy"))
    leftovers = [n for n in os.listdir(out) if n.startswith(".snapshot.")]
    assert len(leftovers) == 1  # the hidden temporary directory of the killed write

    # A later save removes it once nothing has been written to it for an hour (younger,
    # it may belong to a save in progress). Its name says whose it is.
    (leftover,) = leftovers
    assert leftover.endswith(".chainer-tmp")
    snapshot_writers.SimpleWriter()("snapshot", str(out), model)
    assert leftover in os.listdir(out)
    for root, dirs, files in os.walk(out / leftover):
        for name in [*dirs, *files, "."]:
            os.utime(os.path.join(root, name), (time.time() - 7200,) * 2)
    snapshot_writers.SimpleWriter()("snapshot_iter_2", str(out), model)
    assert not [n for n in os.listdir(out) if n.startswith(".")]
