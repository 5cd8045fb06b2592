"""Min/Max/BestValueTrigger: means over the interval compared with the best so far."""

import pytest
from _training_testlib import FakeTrainer, fire_sequence, save_and_load

from chainer.training import triggers

LOSSES = [5.0, 3.0, 4.0, 4.0, 1.0, 2.0, 6.0, 6.0]
# Means over intervals of 2 iterations, at iterations 2, 4, 6, 8: 4, 4, 1.5, 6.
OBSERVATIONS = [{"loss": v} for v in LOSSES]


def test_min_value_trigger():
    trigger = triggers.MinValueTrigger("loss", trigger=(2, "iteration"))
    # 2: first mean (4); 4: 4 is not < 4; 6: 1.5 < 4; 8: 6 is not < 1.5.
    assert fire_sequence(trigger, FakeTrainer(), 8, OBSERVATIONS) == [2, 6]


def test_max_value_trigger():
    trigger = triggers.MaxValueTrigger("loss", trigger=(2, "iteration"))
    # 2: first mean (4); 4: 4 is not > 4; 6: 1.5; 8: 6 > 4.
    assert fire_sequence(trigger, FakeTrainer(), 8, OBSERVATIONS) == [2, 8]


def test_best_value_trigger_with_custom_comparison():
    closer_to_3 = triggers.BestValueTrigger("loss", lambda best, new: abs(new - 3) < abs(best - 3), (2, "iteration"))
    # means 4, 4, 1.5, 6: distances 1, 1, 1.5, 3 -> only the first.
    assert fire_sequence(closer_to_3, FakeTrainer(), 8, OBSERVATIONS) == [2]


def test_missing_key_never_fires():
    trigger = triggers.MinValueTrigger("validation/main/loss", trigger=(2, "iteration"))
    assert fire_sequence(trigger, FakeTrainer(), 8, OBSERVATIONS) == []


def test_resume_keeps_best_value_and_running_mean():
    trainer = FakeTrainer()
    trigger = triggers.MinValueTrigger("loss", trigger=(2, "iteration"))
    fire_sequence(trigger, trainer, 5, OBSERVATIONS)  # stops inside the third interval
    resumed = triggers.MinValueTrigger("loss", trigger=(2, "iteration"))
    save_and_load(trigger, resumed)
    assert resumed._best_value == 4.0
    assert fire_sequence(resumed, trainer, 3, OBSERVATIONS[5:]) == [6]


def test_bad_arguments():
    with pytest.raises(TypeError, match="key must be a str"):
        triggers.MinValueTrigger(3)
    with pytest.raises(TypeError, match="compare must be callable"):
        triggers.BestValueTrigger("loss", "less")
