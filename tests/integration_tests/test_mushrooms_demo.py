"""The main job: the docs' first program on the real Mushroom data set."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import chainer.functions as F
import chainer.links as L
from chainer import serializers

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "mushrooms.py"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("mushrooms")
    result = subprocess.run(
        [sys.executable, str(DEMO), "--epoch", "20", "--out", str(out)], capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr
    return out, result.stdout


def test_prints_the_docs_table_and_summary(demo_run):
    _, stdout = demo_run
    lines = stdout.splitlines()
    assert lines[0].split() == [
        "epoch",
        "main/loss",
        "validation/main/loss",
        "main/accuracy",
        "validation/main/accuracy",
        "elapsed_time",
    ]
    rows = [line.split() for line in lines if line.split() and line.split()[0].isdigit()]
    assert [int(r[0]) for r in rows] == list(range(1, 21))
    assert any(line.startswith(("Predicted Edible, Actual", "Predicted Poisonous, Actual")) for line in lines)
    assert any(line.startswith("Final validation accuracy: ") for line in lines)
    assert any(line.startswith("Wall time: ") for line in lines)


def test_loss_falls_and_accuracy_rises(demo_run):
    out, _ = demo_run
    log = json.loads((out / "log").read_text())
    assert len(log) == 20
    assert log[-1]["main/loss"] < 0.6 * log[0]["main/loss"]
    assert log[-1]["validation/main/loss"] < log[0]["validation/main/loss"]
    assert log[-1]["validation/main/accuracy"] > 0.9


def test_artefacts_open(demo_run):
    out, _ = demo_run
    for name in ("loss.png", "accuracy.png"):
        with Image.open(out / name) as image:
            image.verify()
    dot = (out / "cg.dot").read_text()
    assert dot.startswith("digraph") and "SigmoidCrossEntropy" in dot and "LinearFunction" in dot


def _demo_module():
    spec = importlib.util.spec_from_file_location("mushrooms_demo", DEMO)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_snapshot_loads_into_a_fresh_model(demo_run):
    out, _ = demo_run
    snapshot = out / "snapshot_iter_1138"
    assert snapshot.exists()
    model = L.Classifier(_demo_module().MLP(44, 1), lossfun=F.sigmoid_cross_entropy, accfun=F.binary_accuracy)
    serializers.load_npz(str(snapshot), model, path="updater/model:main/")
    with np.load(snapshot) as saved:
        np.testing.assert_array_equal(model.predictor[0][0].W.array, saved["updater/model:main/predictor/0/0/W"])
        assert model.predictor[0][0].W.shape == (44, 22)
    y = model.predictor(np.zeros((2, 22), np.float32))
    assert y.shape == (2, 1) and np.isfinite(y.array).all()


def test_default_run_reaches_the_docs_accuracy(tmp_path):
    """The docs' table ends at 0.98 validation accuracy after 50 epochs; so must the demo's
    default run (50 epochs, seed 0) on the real data."""
    result = subprocess.run(
        [sys.executable, str(DEMO), "--out", str(tmp_path)], capture_output=True, text=True, timeout=900
    )
    assert result.returncode == 0, result.stderr
    log = json.loads((tmp_path / "log").read_text())
    assert len(log) == 50
    assert log[-1]["validation/main/accuracy"] >= 0.98, log[-1]
    (line,) = [line for line in result.stdout.splitlines() if line.startswith("Final validation accuracy: ")]
    assert float(line.split(":")[1].split()[0]) == pytest.approx(log[-1]["validation/main/accuracy"], abs=1e-4)
