"""PlotReport: PNG files that open, the points plotted, resume, matplotlib missing."""

import os

import numpy
import pytest
from _training_testlib import FakeTrainer, save_and_load
from PIL import Image

from chainer.training import extensions
from chainer.training.extensions import _plot


class Trainer(FakeTrainer):
    def __init__(self, out):
        super().__init__(size=4, batch_size=2)
        self.out = str(out)
        os.makedirs(self.out, exist_ok=True)


def feed(ext, trainer, values):
    for loss, val in values:
        trainer.updater.update()
        trainer.observation = {"main/loss": numpy.float32(loss)}
        if val is not None:
            trainer.observation["validation/main/loss"] = val
        ext(trainer)


VALUES = [(4.0, None), (2.0, 1.0), (3.0, None), (5.0, 3.0)]


def test_png_and_points(tmp_path):
    trainer = Trainer(tmp_path)
    ext = extensions.PlotReport(["main/loss", "validation/main/loss"], "epoch", filename="loss.png")
    feed(ext, trainer, VALUES)
    # Epochs end at iterations 2 and 4: means (4 + 2) / 2 and (3 + 5) / 2; validation 1 and 3.
    assert ext._data == {"main/loss": [(1, 3.0), (2, 4.0)], "validation/main/loss": [(1, 1.0), (2, 3.0)]}
    with Image.open(tmp_path / "loss.png") as image:
        assert image.format == "PNG"
        image.load()
        assert image.size[0] > 100 and image.size[1] > 100
    assert os.listdir(tmp_path) == ["loss.png"]


def test_file_name_alias_single_key_and_iteration_axis(tmp_path):
    trainer = Trainer(tmp_path)
    calls = []
    ext = extensions.PlotReport(
        "main/loss", trigger=(1, "iteration"), file_name="it.png", postprocess=lambda *a: calls.append(len(a))
    )
    feed(ext, trainer, VALUES[:2])
    assert ext._data == {"main/loss": [(1, 4.0), (2, 2.0)]}
    assert calls == [3, 3]
    assert (tmp_path / "it.png").exists()


def test_other_formats_follow_the_extension(tmp_path):
    trainer = Trainer(tmp_path)
    feed(extensions.PlotReport("main/loss", trigger=(1, "iteration"), filename="loss.svg"), trainer, VALUES[:1])
    assert (tmp_path / "loss.svg").read_text().lstrip().startswith("<?xml")


def test_resume_keeps_the_points(tmp_path):
    trainer = Trainer(tmp_path)
    ext = extensions.PlotReport(["main/loss"], "epoch")
    feed(ext, trainer, VALUES[:3])
    resumed = extensions.PlotReport(["main/loss"], "epoch")
    save_and_load(ext, resumed)
    feed(resumed, trainer, VALUES[3:])
    assert resumed._data == {"main/loss": [(1, 3.0), (2, 4.0)]}


def test_without_matplotlib(tmp_path, monkeypatch):
    monkeypatch.setattr(_plot, "available", lambda: False)
    with pytest.warns(UserWarning, match="matplotlib is not installed"):
        ext = extensions.PlotReport(["main/loss"])
    assert extensions.PlotReport.available() is False
    trainer = Trainer(tmp_path)
    feed(ext, trainer, VALUES)
    assert os.listdir(tmp_path) == []


def test_available():
    assert extensions.PlotReport.available() is True


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        ({"y_keys": []}, TypeError, "y_keys"),
        ({"y_keys": ["a"], "x_key": "time"}, ValueError, "x_key"),
        ({"y_keys": ["a"], "bogus": 1}, TypeError, "unexpected keyword"),
        ({"y_keys": ["a"], "postprocess": 1}, TypeError, "postprocess must be callable"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        extensions.PlotReport(**kwargs)


@pytest.mark.skipif(not _plot.available(), reason="needs matplotlib")
def test_before_training_call_plots_its_own_point(tmp_path):
    trainer = Trainer(tmp_path)
    ext = extensions.PlotReport(["main/loss"], "iteration", trigger=(2, "iteration"))
    trainer.observation = {"main/loss": 9.0}
    ext(trainer)  # called before training (iteration 0)
    assert ext._data == {"main/loss": [(0, 9.0)]}
    feed(ext, trainer, [(4.0, None), (2.0, None)])
    # The 9 of the untrained model is not averaged into the point of iteration 2.
    assert ext._data == {"main/loss": [(0, 9.0), (2, 3.0)]}
