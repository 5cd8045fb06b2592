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


class _NothingSaved:
    """A deserializer of a snapshot that holds no key for the trigger."""

    def __call__(self, key, value):
        raise KeyError(key)

    def __getitem__(self, key):
        return self


def test_loading_a_snapshot_without_the_flag():
    import pytest

    # Chainer 7 before v6 saved nothing: the loaded trigger warns and counts as fired;
    # with call_on_resume it still fires once after resuming.
    for call_on_resume, expected in ((False, []), (True, [1])):
        trigger = triggers.OnceTrigger(call_on_resume=call_on_resume)
        with pytest.warns(UserWarning, match="OnceTrigger: the snapshot has no _flag_first"):
            trigger.serialize(_NothingSaved())
        assert fire_sequence(trigger, FakeTrainer(), 3) == expected
