"""TimeTrigger: fires at the first call after each multiple of the period."""

import pytest
from _training_testlib import FakeTrainer, save_and_load

from chainer.training import triggers


def run(trigger, times):
    trainer = FakeTrainer()
    fired = []
    for i, t in enumerate(times, 1):
        trainer.elapsed_time = t
        if trigger(trainer):
            fired.append(i)
    return fired


def test_schedule():
    # next times 1 -> 2 -> 3 -> 4: fires at 1.2, 2.3, 4.0.
    assert run(triggers.TimeTrigger(1.0), [0.5, 1.2, 1.5, 2.3, 4.0]) == [2, 4, 5]


def test_resume():
    trigger = triggers.TimeTrigger(10)
    run(trigger, [11, 12])
    resumed = triggers.TimeTrigger(10)
    save_and_load(trigger, resumed)
    assert run(resumed, [15, 21]) == [2]


@pytest.mark.parametrize("period", [0, -1, "1"])
def test_bad_period(period):
    with pytest.raises(ValueError, match="TimeTrigger: period must be a positive number"):
        triggers.TimeTrigger(period)
