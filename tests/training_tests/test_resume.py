"""A run killed after epoch k and resumed from its snapshot ends bit-identical to an
uninterrupted run: parameters, optimizer state, iterator order, random numbers, log."""

import os
import signal
import subprocess
import sys

import numpy
import pytest
from _resume_program import final_state, train

PROGRAM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_resume_program.py")


def run_killed(out, kill_at):
    env = dict(os.environ, CHAINER_DISABLE_PLUGIN_AUTOLOAD="1")
    result = subprocess.run([sys.executable, PROGRAM, out, str(kill_at)], capture_output=True, text=True, env=env)
    assert result.returncode == -signal.SIGKILL, result.stderr


def assert_same(a, b):
    entries_a, log_a = a
    entries_b, log_b = b
    assert entries_a.keys() == entries_b.keys()
    for key in entries_a:
        numpy.testing.assert_array_equal(entries_a[key], entries_b[key], err_msg=key, strict=True)
    assert log_a == log_b


@pytest.fixture(scope="module")
def expected(tmp_path_factory):
    """The final state of the uninterrupted run."""
    return final_state(train(str(tmp_path_factory.mktemp("full"))))


# 50 examples in batches of 8: epoch 1 ends in iteration 7, epoch 2 in iteration 13.
# Killed right after the snapshot of epoch 2, or two iterations later (lost work).
@pytest.mark.parametrize("kill_at,resume", [(13, "autoload"), (15, "autoload"), (15, "load_npz")])
def test_killed_and_resumed_run_matches_the_uninterrupted_one(tmp_path, expected, kill_at, resume):
    out = str(tmp_path / "interrupted")
    run_killed(out, kill_at)
    snapshots = sorted(n for n in os.listdir(out) if n.startswith("snapshot_iter_"))
    assert snapshots == ["snapshot_iter_13", "snapshot_iter_7"]
    resumed = train(out, resume=resume)
    assert resumed.updater.iteration == 38
    assert_same(final_state(resumed), expected)
    # The entry written before training (iteration 0, with the untrained model's
    # validation loss) appears once, as in the uninterrupted run.
    log = expected[1]
    assert [e["iteration"] for e in log[:2]] == [0, 5] and "validation/main/loss" in log[0]
    assert [e["iteration"] for e in log if "before_training" in e] == [0]


def test_control_other_random_numbers_after_resuming_give_another_result(tmp_path, expected):
    """The comparison above can fail: a resumed run that does not draw the random
    numbers of the snapshot (shuffling, dropout) ends elsewhere."""
    out = str(tmp_path / "interrupted")
    run_killed(out, 15)
    entries, log = final_state(train(out, resume="load_npz", reseed_after_load=True))
    assert entries.keys() == expected[0].keys()
    assert not numpy.array_equal(entries["model/predictor/l1/W"], expected[0]["model/predictor/l1/W"])
    assert log[:3] == expected[1][:3]  # written before the snapshot
    assert log[-1] != expected[1][-1]
