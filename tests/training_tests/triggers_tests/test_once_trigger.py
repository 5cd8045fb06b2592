"""OnceTrigger: the first call only; call_on_resume."""

from _training_testlib import FakeTrainer, fire_sequence, save_and_load

from chainer.training import triggers


def test_fires_once():
    trigger = triggers.OnceTrigger()
    assert not trigger.finished
    assert fire_sequence(trigger, FakeTrainer(), 5) == [1]
    assert trigger.finished


def test_resume_without_call_on_resume():
    trigger = triggers.OnceTrigger()
    fire_sequence(trigger, FakeTrainer(), 2)
    resumed = triggers.OnceTrigger()
    save_and_load(trigger, resumed)
    assert resumed.finished
    assert fire_sequence(resumed, FakeTrainer(), 3) == []


def test_resume_with_call_on_resume():
    trigger = triggers.OnceTrigger(call_on_resume=True)
    assert fire_sequence(trigger, FakeTrainer(), 2) == [1]
    resumed = triggers.OnceTrigger(call_on_resume=True)
    save_and_load(trigger, resumed)
    assert fire_sequence(resumed, FakeTrainer(), 3) == [1]
