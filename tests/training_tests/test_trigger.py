"""get_trigger: tuples, callables, None."""

import pytest
from _training_testlib import FakeTrainer, fire_sequence

from chainer import training
from chainer.training import triggers


def test_tuple_gives_interval_trigger():
    trigger = training.get_trigger((2, "epoch"))
    assert isinstance(trigger, triggers.IntervalTrigger)
    assert trigger.get_training_length() == (2, "epoch")
    assert isinstance(training.get_trigger([3, "iteration"]), triggers.IntervalTrigger)


def test_callables_are_returned_as_they_are():
    trigger = triggers.MinValueTrigger("main/loss")
    assert training.get_trigger(trigger) is trigger

    def every_third(trainer):
        return trainer.updater.iteration % 3 == 0

    assert training.get_trigger(every_third) is every_third
    assert fire_sequence(training.get_trigger(every_third), FakeTrainer(), 7) == [3, 6]


def test_none_never_fires():
    assert fire_sequence(training.get_trigger(None), FakeTrainer(), 20) == []


@pytest.mark.parametrize("bad", [5, "epoch", (1, "epoch", 2), object()])
def test_bad_triggers(bad):
    with pytest.raises(TypeError, match="get_trigger: a trigger must be"):
        training.get_trigger(bad)


def test_pre_v2_path_of_interval_trigger():
    from chainer.training import trigger

    assert trigger.IntervalTrigger is triggers.IntervalTrigger
