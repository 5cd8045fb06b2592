"""A training program as Chainer's tutorials write it, and what Chainer 7.8.1 printed and
wrote for it.

The program: an MLP with fixed initial weights in ``L.Classifier``, MomentumSGD, an
Evaluator, LogReport, observe_lr and PrintReport called before training too, a second
LogReport every two iterations with its own PrintReport, PlotReports, snapshots each
epoch and an ExponentialShift of the learning rate. The expected table, log and snapshot
keys below are those Chainer 7.8.1 produced for this same program (NumPy 1.26), written
out here; the figures are compared to 6 significant digits, the layout exactly.
"""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pytest

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import training
from chainer.training import extensions

pytest.importorskip("matplotlib")  # the program has PlotReports


class MLP(chainer.Chain):
    def __init__(self) -> None:
        super().__init__()
        rs = np.random.RandomState(0)  # the legacy generator: the same numbers on every NumPy
        with self.init_scope():
            self.l1 = L.Linear(4, 5, initialW=rs.uniform(-1, 1, (5, 4)).astype(np.float32))
            self.l2 = L.Linear(5, 3, initialW=rs.uniform(-1, 1, (3, 5)).astype(np.float32))

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))


def dataset(n: int, seed: int) -> chainer.datasets.TupleDataset:
    rs = np.random.RandomState(seed)
    x = rs.normal(size=(n, 4)).astype(np.float32)
    t = (np.abs(x).argmax(axis=1) % 3).astype(np.int32)
    return chainer.datasets.TupleDataset(x, t)


# PrintReport's tables as Chainer 7.8.1 printed them (trailing blanks and its "\033[J"
# before each row left out: ours writes neither to a file).
TABLE = """\
epoch       iteration   main/loss   validation/main/loss  main/accuracy  validation/main/accuracy  lr
0           0                       1.16768                              0.4                       0.1
1           5           1.11663     1.0498                0.36           0.4                       0.1
2           10          0.914407    0.972621              0.6            0.433333                  0.05
3           15          0.826327    0.924724              0.56           0.433333                  0.025
"""
ITERATION_TABLE = """\
epoch       iteration   main/loss
0           2           1.20539
0           4           0.956236
1           6           1.0435
1           8           1.02859
2           10          0.843864
2           12          0.897014
2           14          0.766134
"""

# The keys of Chainer 7.8.1's trainer snapshot for this program (ours may add keys,
# which 7.8.1 ignores when it loads; each of these must be there, as 7.8.1 reads them).
SNAPSHOT_KEYS = """
_snapshot_elapsed_time
extensions/ExponentialShift/_last_value extensions/ExponentialShift/_t
extensions/LogReport/_log extensions/LogReport/_summary/_names
extensions/LogReport/_trigger/previous_epoch_detail extensions/LogReport/_trigger/previous_iteration
extensions/PlotReport/_plot_loss.png extensions/PlotReport_1/_plot_accuracy.png
extensions/iterlog/_log extensions/iterlog/_summary/_names
extensions/iterlog/_trigger/previous_epoch_detail extensions/iterlog/_trigger/previous_iteration
stop_trigger/previous_epoch_detail stop_trigger/previous_iteration
updater/iteration updater/iterator:main/current_position updater/iterator:main/epoch
updater/iterator:main/is_new_epoch updater/iterator:main/previous_epoch_detail
updater/model:main/predictor/l1/W updater/model:main/predictor/l1/b
updater/model:main/predictor/l2/W updater/model:main/predictor/l2/b
updater/optimizer:main/epoch updater/optimizer:main/t
updater/optimizer:main/predictor/l1/W/t updater/optimizer:main/predictor/l1/W/v
updater/optimizer:main/predictor/l1/b/t updater/optimizer:main/predictor/l1/b/v
updater/optimizer:main/predictor/l2/W/t updater/optimizer:main/predictor/l2/W/v
updater/optimizer:main/predictor/l2/b/t updater/optimizer:main/predictor/l2/b/v
""".split()
TRIGGERED = (
    "ExponentialShift LogReport PlotReport PlotReport_1 PrintReport PrintReport_1 ProgressBar "
    "_Snapshot _Snapshot_1 _observe_value iterlog validation"
).split()


def assert_same_table(printed: str, expected: str) -> None:
    """Same lines, columns at the same places, figures equal to 6 significant digits."""
    printed_lines, expected_lines = printed.splitlines(), expected.splitlines()
    assert len(printed_lines) == len(expected_lines), printed
    assert printed_lines[0] == expected_lines[0]
    for got, want in zip(printed_lines[1:], expected_lines[1:]):
        assert [i for i, c in enumerate(got) if c != " " and (i == 0 or got[i - 1] == " ")] == [
            i for i, c in enumerate(want) if c != " " and (i == 0 or want[i - 1] == " ")
        ], f"columns differ:\n{got}\n{want}"
        np.testing.assert_allclose([float(v) for v in got.split()], [float(v) for v in want.split()], rtol=2e-6)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("result")
    model = L.Classifier(MLP())
    optimizer = chainer.optimizers.MomentumSGD(lr=0.1).setup(model)
    train_iter = chainer.iterators.SerialIterator(dataset(24, 1), 5, shuffle=False)
    test_iter = chainer.iterators.SerialIterator(dataset(12, 2), 5, repeat=False, shuffle=False)
    trainer = training.Trainer(training.updaters.StandardUpdater(train_iter, optimizer), (3, "epoch"), out=str(out))
    trainer.extend(extensions.Evaluator(test_iter, model), call_before_training=True)
    trainer.extend(extensions.LogReport(), call_before_training=True)
    trainer.extend(extensions.LogReport(trigger=(2, "iteration"), filename="log_iter"), name="iterlog")
    trainer.extend(extensions.observe_lr(), call_before_training=True)
    table, iteration_table, bar = io.StringIO(), io.StringIO(), io.StringIO()
    entries = ["epoch", "iteration", "main/loss", "validation/main/loss", "main/accuracy"]
    entries += ["validation/main/accuracy", "lr"]
    trainer.extend(extensions.PrintReport(entries, out=table), call_before_training=True)
    trainer.extend(
        extensions.PrintReport(["epoch", "iteration", "main/loss"], log_report="iterlog", out=iteration_table)
    )
    plots = extensions.PlotReport(["main/loss", "validation/main/loss"], x_key="epoch", file_name="loss.png")
    trainer.extend(plots, call_before_training=True)
    trainer.extend(
        extensions.PlotReport(["main/accuracy", "validation/main/accuracy"], "iteration", file_name="accuracy.png")
    )
    trainer.extend(extensions.ProgressBar(update_interval=4, out=bar))
    trainer.extend(extensions.snapshot(), trigger=(1, "epoch"))
    trainer.extend(extensions.snapshot_object(model, "model_epoch_{.updater.epoch}"), trigger=(1, "epoch"))
    trainer.extend(extensions.ExponentialShift("lr", 0.5), trigger=(1, "epoch"))
    trainer.run()
    return out, trainer, table.getvalue(), iteration_table.getvalue(), plots


def test_printed_tables(run):
    _, _, table, iteration_table, _ = run
    assert_same_table(table, TABLE)
    assert_same_table(iteration_table, ITERATION_TABLE)


def test_log_file_has_the_before_training_entry_first(run):
    out, _, _, _, _ = run
    log = json.loads((out / "log").read_text())
    assert [(e["epoch"], e["iteration"]) for e in log] == [(0, 0), (1, 5), (2, 10), (3, 15)]
    # The untrained model's figures, alone in their entry (not averaged into epoch 1).
    assert sorted(log[0]) == [
        "elapsed_time",
        "epoch",
        "iteration",
        "lr",
        "validation/main/accuracy",
        "validation/main/loss",
    ]
    assert math.isclose(log[0]["validation/main/loss"], 1.1676817, rel_tol=1e-6)
    assert [e["lr"] for e in log] == [0.1, 0.1, 0.05, 0.025]
    # 7.8.1's file layout: a JSON list indented by four spaces, keys in the order reported.
    assert (out / "log").read_text().startswith('[\n    {\n        "validation/main/loss": ')
    iteration_log = json.loads((out / "log_iter").read_text())
    assert [e["iteration"] for e in iteration_log] == [2, 4, 6, 8, 10, 12, 14]


def test_plot_data_starts_before_training(run):
    _, _, _, _, plots = run
    data = plots._data
    assert [x for x, _ in data["validation/main/loss"]] == [0, 1, 2, 3]
    assert [x for x, _ in data["main/loss"]] == [1, 2, 3]


def test_files_and_snapshot_keys(run):
    out, trainer, _, _, _ = run
    names = {p.name for p in out.iterdir()}
    assert {"log", "log_iter", "snapshot_iter_5", "snapshot_iter_10", "snapshot_iter_15"} <= names
    assert {"model_epoch_1", "model_epoch_2", "model_epoch_3"} <= names
    with np.load(out / "snapshot_iter_15") as snapshot:
        keys = set(snapshot.files)
        assert set(SNAPSHOT_KEYS) <= keys, sorted(set(SNAPSHOT_KEYS) - keys)
        for name in TRIGGERED:
            assert {
                f"extension_triggers/{name}/previous_epoch_detail",
                f"extension_triggers/{name}/previous_iteration",
            } <= keys
        assert snapshot["updater/model:main/predictor/l1/W"].shape == (5, 4)
        assert snapshot["updater/optimizer:main/predictor/l1/W/v"].dtype == np.float32
        assert snapshot["updater/iteration"] == 15
        assert json.loads(str(snapshot["extensions/LogReport/_log"]))[0]["iteration"] == 0
    with np.load(out / "model_epoch_3") as model_file:
        assert sorted(model_file.files) == ["predictor/l1/W", "predictor/l1/b", "predictor/l2/W", "predictor/l2/b"]
