"""ManualScheduleTrigger against schedules computed by hand."""

import pytest
from _training_testlib import FakeTrainer, fire_sequence, save_and_load

from chainer.training import triggers


def test_iteration_points():
    trigger = triggers.ManualScheduleTrigger([2, 5], "iteration")
    trainer = FakeTrainer()
    assert fire_sequence(trigger, trainer, 4) == [2]
    assert not trigger.finished
    assert fire_sequence(trigger, trainer, 4) == [5]
    assert trigger.finished


def test_single_point():
    assert fire_sequence(triggers.ManualScheduleTrigger(3, "iteration"), FakeTrainer(), 6) == [3]


def test_epoch_points_inside_batches():
    # 10 examples, batches of 3: epoch_detail 0.3, 0.6, 0.9, 1.2, ..., 2.4, 2.7.
    # Point 1 is crossed by iteration 4 (0.9 -> 1.2), point 2.5 by iteration 9 (2.4 -> 2.7).
    trigger = triggers.ManualScheduleTrigger([1, 2.5], "epoch")
    assert fire_sequence(trigger, FakeTrainer(10, 3), 12) == [4, 9]
    assert trigger.finished


def test_resume():
    trainer = FakeTrainer(10, 3)
    trigger = triggers.ManualScheduleTrigger([1, 2.5], "epoch")
    fire_sequence(trigger, trainer, 5)
    resumed = triggers.ManualScheduleTrigger([1, 2.5], "epoch")
    save_and_load(trigger, resumed)
    assert fire_sequence(resumed, trainer, 7) == [9]


@pytest.mark.parametrize(
    "points,unit,error",
    [([1], "epochs", ValueError), ([], "epoch", ValueError), (["a"], "epoch", ValueError), (None, "epoch", TypeError)],
)
def test_bad_arguments(points, unit, error):
    with pytest.raises(error, match="ManualScheduleTrigger"):
        triggers.ManualScheduleTrigger(points, unit)
