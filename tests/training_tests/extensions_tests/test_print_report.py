"""PrintReport: the table format of the documentation."""

import io

import pytest
from _training_testlib import FakeTrainer

from chainer.training import extensions


class FixedLog(extensions.LogReport):
    def __init__(self, entries):
        super().__init__()
        self._log = list(entries)

    def __call__(self, trainer):
        pass


class TTY(io.StringIO):
    def isatty(self):
        return True


ENTRIES = ["epoch", "main/loss", "validation/main/loss", "elapsed_time"]
LOG = [
    {"epoch": 1, "main/loss": 0.5507241, "validation/main/loss": 0.502818, "elapsed_time": 0.215426},
    {"epoch": 2, "main/loss": 0.0622394, "elapsed_time": 28.9067},
]


def test_table():
    out = io.StringIO()
    report = extensions.PrintReport(ENTRIES, log_report=FixedLog(LOG), out=out)
    report(FakeTrainer())
    # Columns at least 10 wide, two spaces apart; values left-aligned with "g".
    assert out.getvalue() == (
        "epoch       main/loss   validation/main/loss  elapsed_time\n"
        "1           0.550724    0.502818              0.215426\n"
        "2           0.0622394                         28.9067\n"
    )


def test_prints_only_new_entries_and_reads_the_trainer_log_report():
    out = io.StringIO()
    log_report = FixedLog(LOG[:1])

    class Trainer(FakeTrainer):
        def get_extension(self, name):
            assert name == "LogReport"
            return log_report

    report = extensions.PrintReport(["epoch"], out=out)
    trainer = Trainer()
    report(trainer)
    report(trainer)
    log_report._log.append(LOG[1])
    report(trainer)
    assert out.getvalue() == "epoch\n1\n2\n"


def test_erase_sequence_only_on_a_terminal():
    out = TTY()
    extensions.PrintReport(["epoch"], log_report=FixedLog(LOG[:1]), out=out)(FakeTrainer())
    assert out.getvalue() == "epoch\n\033[J1\n"


def test_bad_arguments():
    with pytest.raises(TypeError, match="entries must be a list of str"):
        extensions.PrintReport([1])
    with pytest.raises(TypeError, match="log_report must be a LogReport"):
        extensions.PrintReport(["epoch"], log_report=3)
    with pytest.raises(TypeError, match="write method"):
        extensions.PrintReport(["epoch"], out=3)
