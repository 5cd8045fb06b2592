"""EarlyStoppingTrigger: patience counted by hand, modes, max_trigger, resume."""

import pytest
from _training_testlib import FakeTrainer, fire_sequence, save_and_load

from chainer.training import triggers


def obs(key, values):
    return [{key: v} for v in values]


def test_stops_after_patience_checks_without_improvement():
    trigger = triggers.EarlyStoppingTrigger(
        check_trigger=(1, "iteration"), monitor="val", patience=2, max_trigger=(100, "iteration")
    )
    # best 5, 4 (improves), 4.5 (1 without), 4.2 (2 without) -> stop at 4.
    fired = fire_sequence(trigger, FakeTrainer(), 7, obs("val", [5, 4, 4.5, 4.2, 3, 3.1, 3.2]))
    assert fired[0] == 4


def test_improvement_resets_the_count():
    trigger = triggers.EarlyStoppingTrigger(
        check_trigger=(1, "iteration"), monitor="val", patience=2, max_trigger=(100, "iteration")
    )
    # 5, 6 (1), 4 (reset), 4.1 (1), 3 (reset), 3.5 (1), 3.6 (2) -> stop at 7.
    assert fire_sequence(trigger, FakeTrainer(), 7, obs("val", [5, 6, 4, 4.1, 3, 3.5, 3.6])) == [7]


def test_auto_mode_maximizes_accuracy():
    trigger = triggers.EarlyStoppingTrigger(
        check_trigger=(1, "iteration"), monitor="validation/main/accuracy", patience=1, max_trigger=(100, "iteration")
    )
    # 0.5, 0.6 (better), 0.55 (worse) -> stop at 3.
    assert fire_sequence(trigger, FakeTrainer(), 4, obs("validation/main/accuracy", [0.5, 0.6, 0.55, 0.7]))[0] == 3


def test_mean_over_the_check_interval():
    trigger = triggers.EarlyStoppingTrigger(
        check_trigger=(2, "iteration"), monitor="val", patience=1, max_trigger=(100, "iteration")
    )
    # means: (4+2)/2=3 at 2, (1+6)/2=3.5 at 4 -> not better -> stop at 4.
    assert fire_sequence(trigger, FakeTrainer(), 4, obs("val", [4, 2, 1, 6])) == [4]


def test_max_trigger_stops():
    trigger = triggers.EarlyStoppingTrigger(monitor="val", max_trigger=(3, "iteration"))
    assert fire_sequence(trigger, FakeTrainer(), 3, obs("val", [3, 2, 1]))[0] == 3
    assert trigger.get_training_length() == (3, "iteration")


def test_patients_is_the_old_name_of_patience():
    trigger = triggers.EarlyStoppingTrigger(patients=5)
    assert trigger.patience == 5
    assert triggers.EarlyStoppingTrigger().patience == 3


@pytest.mark.parametrize(
    "kwargs,line",
    [
        ({}, "early stopping: operator is less"),
        ({"monitor": "validation/main/accuracy"}, "early stopping: operator is greater"),
        ({"mode": "max"}, "early stopping: operator is greater"),
        ({"monitor": "main/accuracy", "mode": "min"}, "early stopping: operator is less"),
    ],
)
def test_verbose_says_which_comparison_it_uses(capsys, kwargs, line):
    """verbose=True prints, when created, whether improving means less or greater (as
    Chainer 7 does); without it nothing is printed."""
    triggers.EarlyStoppingTrigger(verbose=True, **kwargs)
    assert capsys.readouterr().out == line + "\n"
    triggers.EarlyStoppingTrigger(**kwargs)
    assert capsys.readouterr().out == ""


def test_missing_monitor_warns_once():
    trigger = triggers.EarlyStoppingTrigger(check_trigger=(1, "iteration"), monitor="val")
    with pytest.warns(UserWarning, match="'val' is not in the observation"):
        assert fire_sequence(trigger, FakeTrainer(), 3) == []


def test_resume_behaves_like_the_uninterrupted_trigger():
    values = obs("val", [5, 4, 4.5, 4.6, 4.7, 4.8])

    def make():
        return triggers.EarlyStoppingTrigger(
            check_trigger=(1, "iteration"), monitor="val", patience=3, max_trigger=(100, "iteration")
        )

    trainer = FakeTrainer()
    trigger = make()
    fire_sequence(trigger, trainer, 3, values)
    resumed = make()
    save_and_load(trigger, resumed)
    assert (resumed.best, resumed.count) == (4.0, 1)
    assert fire_sequence(resumed, trainer, 3, values[3:]) == [5, 6]


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        ({"mode": "maximum"}, ValueError, "mode must be"),
        ({"patience": 0}, ValueError, "patience must be a positive int"),
        ({"patience": 2, "patients": 3}, TypeError, "give patience only"),
        ({"bogus": 1}, TypeError, "unexpected keyword"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        triggers.EarlyStoppingTrigger(**kwargs)
