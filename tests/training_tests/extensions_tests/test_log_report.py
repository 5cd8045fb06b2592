"""LogReport: means per interval, the JSON file (written atomically), resume."""

import json
import os

import numpy
import pytest
from _training_testlib import FakeTrainer, save_and_load

import chainer
from chainer.training import _util, extensions

LOSSES = [4.0, 2.0, 3.0, 5.0, 1.0]


class Trainer(FakeTrainer):
    def __init__(self, out):
        super().__init__()
        self.out = str(out)
        os.makedirs(self.out, exist_ok=True)


def feed(ext, trainer, values, key="main/loss"):
    for v in values:
        trainer.updater.update()
        trainer.elapsed_time += 0.5
        trainer.observation = {key: chainer.Variable(numpy.array(v, numpy.float32)), "main/other": v * 10}
        ext(trainer)


def read_log(path):
    with open(path) as f:
        return json.load(f)


def test_means_and_file(tmp_path):
    trainer = Trainer(tmp_path)
    ext = extensions.LogReport(trigger=(2, "iteration"))
    feed(ext, trainer, LOSSES)
    assert ext.log == [
        {"main/loss": 3.0, "main/other": 30.0, "epoch": 0, "iteration": 2, "elapsed_time": 1.0},
        {"main/loss": 4.0, "main/other": 40.0, "epoch": 1, "iteration": 4, "elapsed_time": 2.0},
    ]
    assert read_log(tmp_path / "log") == ext.log
    with open(tmp_path / "log") as f:
        assert f.read() == json.dumps(ext.log, indent=4)


def test_keys_postprocess_and_filename(tmp_path):
    trainer = Trainer(tmp_path)

    def postprocess(entry):
        entry["double"] = entry["main/loss"] * 2

    ext = extensions.LogReport(
        keys=["main/loss"], trigger=(1, "iteration"), postprocess=postprocess, filename="log_{iteration}"
    )
    feed(ext, trainer, LOSSES[:2])
    assert set(ext.log[0]) == {"main/loss", "double", "epoch", "iteration", "elapsed_time"}
    assert ext.log[1]["double"] == 4.0
    assert read_log(tmp_path / "log_2") == ext.log
    assert read_log(tmp_path / "log_1") == ext.log[:1]


def test_log_name_alias_and_no_file(tmp_path):
    trainer = Trainer(tmp_path)
    feed(extensions.LogReport(trigger=(1, "iteration"), log_name="my_log"), trainer, [1.0])
    assert (tmp_path / "my_log").exists()
    feed(extensions.LogReport(trigger=(1, "iteration"), log_name=None), Trainer(tmp_path / "none"), [1.0])
    assert os.listdir(tmp_path / "none") == []


def test_file_is_replaced_atomically(tmp_path, monkeypatch):
    trainer = Trainer(tmp_path)
    ext = extensions.LogReport(trigger=(1, "iteration"))
    feed(ext, trainer, [1.0])
    before = (tmp_path / "log").read_text()

    replaced = []
    real_replace = os.replace

    def recording_replace(src, dst):
        replaced.append((src, dst))
        real_replace(src, dst)

    monkeypatch.setattr(_util.os, "replace", recording_replace)
    feed(ext, trainer, [2.0])
    ((src, dst),) = replaced
    assert os.path.dirname(src) == str(tmp_path) and os.path.basename(src).startswith(".log.")
    assert dst == os.path.join(str(tmp_path), "log")

    def failing_fsync(path):
        raise OSError("disk full")

    monkeypatch.setattr(_util, "_fsync_path", failing_fsync)
    second = (tmp_path / "log").read_text()
    with pytest.raises(OSError, match="disk full"):
        feed(ext, trainer, [3.0])
    assert (tmp_path / "log").read_text() == second != before
    assert os.listdir(tmp_path) == ["log"]  # no temporary file left


def test_resume_mid_interval(tmp_path):
    trainer = Trainer(tmp_path)
    ext = extensions.LogReport(trigger=(2, "iteration"))
    feed(ext, trainer, LOSSES[:3])
    resumed = extensions.LogReport(trigger=(2, "iteration"))
    save_and_load(ext, resumed)
    assert resumed.log == ext.log
    feed(resumed, trainer, LOSSES[3:4])
    assert resumed.log[-1]["main/loss"] == 4.0  # (3 + 5) / 2: the 3 came from before the snapshot


def test_unexpected_keyword():
    with pytest.raises(TypeError, match="unexpected keyword"):
        extensions.LogReport(bogus=1)


def test_before_training_call_writes_its_own_entry(tmp_path):
    # An extension reports 0 before training and 1 at every iteration after; the
    # LogReport called before training writes (0, 0.0) at once instead of averaging the
    # 0 into the first epoch's entry.
    from chainer import testing

    trainer = testing.get_trainer_with_mock_updater((2, "epoch"), 2)
    trainer.out = str(tmp_path)
    trainer.extend(
        lambda t: chainer.report({"value": 0.0 if t.is_before_training else 1.0}),
        name="reporter",
        trigger=(1, "iteration"),
        call_before_training=True,
    )
    log_report = extensions.LogReport()
    trainer.extend(log_report, call_before_training=True)
    trainer.run()
    assert [(entry["epoch"], entry["value"]) for entry in log_report.log] == [(0, 0.0), (1, 1.0), (2, 1.0)]
    assert [entry["iteration"] for entry in read_log(tmp_path / "log")] == [0, 2, 4]
