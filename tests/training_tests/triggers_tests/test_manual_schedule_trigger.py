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


def test_finished_after_loading_a_snapshot_that_did_not_save_it():
    # Chainer 7 before v6 saved nothing for this trigger: a loaded one warns, and knows
    # it is finished as soon as it sees a position past the last point.
    trainer = FakeTrainer(10, 3)
    fire_sequence(triggers.ManualScheduleTrigger(2, "iteration"), trainer, 3)
    resumed = triggers.ManualScheduleTrigger(2, "iteration")

    class NothingSaved:
        def __call__(self, key, value):
            raise KeyError(key)

        def __getitem__(self, key):
            return self

    with pytest.warns(UserWarning, match="ManualScheduleTrigger: the snapshot has no .*; it is guessed"):
        resumed.serialize(NothingSaved())
    assert fire_sequence(resumed, trainer, 1) == [] and resumed.finished


@pytest.mark.parametrize(
    "points,unit,error",
    [([1], "epochs", ValueError), ([], "epoch", ValueError), (["a"], "epoch", ValueError), (None, "epoch", TypeError)],
)
def test_bad_arguments(points, unit, error):
    with pytest.raises(error, match="ManualScheduleTrigger"):
        triggers.ManualScheduleTrigger(points, unit)
