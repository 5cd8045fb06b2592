"""IntervalTrigger against schedules computed by hand, and its serialization."""

import math

import pytest
from _training_testlib import FakeTrainer, fire_sequence, save_and_load

from chainer import serializers
from chainer.training import triggers


def expected_epoch_firings(period, size, batch_size, n):
    """Iteration i fires iff floor(epoch_detail / period) changes from iteration i-1."""
    return [
        i
        for i in range(1, n + 1)
        if math.floor(i * batch_size / size / period) != math.floor((i - 1) * batch_size / size / period)
    ]


def test_iteration_unit():
    assert fire_sequence(triggers.IntervalTrigger(2, "iteration"), FakeTrainer(), 7) == [2, 4, 6]
    assert fire_sequence(triggers.IntervalTrigger(1, "iteration"), FakeTrainer(), 3) == [1, 2, 3]


def test_epoch_unit_with_epochs_ending_inside_batches():
    # 10 examples, batches of 3: epoch_detail 0.3, 0.6, 0.9, 1.2, ... An epoch ends in
    # the batches of iterations 4, 7 and 10.
    assert fire_sequence(triggers.IntervalTrigger(1, "epoch"), FakeTrainer(10, 3), 10) == [4, 7, 10]
    assert expected_epoch_firings(1, 10, 3, 10) == [4, 7, 10]


@pytest.mark.parametrize("period", [0.5, 1, 2, 1.5])
@pytest.mark.parametrize("size,batch_size", [(10, 3), (12, 4), (7, 5)])
def test_epoch_unit_schedules(period, size, batch_size):
    n = 30
    fired = fire_sequence(triggers.IntervalTrigger(period, "epoch"), FakeTrainer(size, batch_size), n)
    assert fired == expected_epoch_firings(period, size, batch_size, n)


@pytest.mark.parametrize("unit,period", [("iteration", 3), ("epoch", 1)])
def test_resumed_trigger_continues_the_schedule(unit, period):
    trainer = FakeTrainer(10, 3)
    trigger = triggers.IntervalTrigger(period, unit)
    first = fire_sequence(trigger, trainer, 5)
    resumed = triggers.IntervalTrigger(period, unit)
    save_and_load(trigger, resumed)
    assert resumed._previous_iteration == 5
    rest = fire_sequence(trigger, trainer, 10)
    trainer.updater.iteration = 5
    assert fire_sequence(resumed, trainer, 10) == rest
    assert first + rest == fire_sequence(triggers.IntervalTrigger(period, unit), FakeTrainer(10, 3), 15)


def test_loading_without_saved_positions_warns_and_guesses():
    trigger = triggers.IntervalTrigger(2, "iteration")
    with pytest.warns(UserWarning, match="previous_iteration"):
        with pytest.warns(UserWarning, match="previous_epoch_detail"):
            serializers.NpzDeserializer({}, strict=True).load(trigger)
    assert trigger._previous_iteration == -1
    trainer = FakeTrainer()
    trainer.updater.iteration = 3
    # The previous iteration is guessed as the current one minus one.
    assert fire_sequence(trigger, trainer, 3) == [4, 6]


def test_epoch_unit_guess_uses_the_updater_previous_epoch_detail():
    trigger = triggers.IntervalTrigger(1, "epoch")
    trigger._previous_epoch_detail = -1.0
    trainer = FakeTrainer(10, 3)
    trainer.updater.iteration = 3  # epoch_detail 0.9
    assert fire_sequence(trigger, trainer, 1) == [4]


def test_training_length_and_repr():
    trigger = triggers.IntervalTrigger(5, "epoch")
    assert trigger.get_training_length() == (5, "epoch")
    assert repr(trigger) == "IntervalTrigger(5, 'epoch')"


@pytest.mark.parametrize(
    "args,error,match",
    [
        ((1, "epochs"), ValueError, "unit must be 'epoch' or 'iteration'"),
        ((0, "epoch"), ValueError, "period must be positive"),
        ((-2, "iteration"), ValueError, "period must be positive"),
        (("1", "epoch"), TypeError, "period must be a number"),
        ((1.5, "iteration"), ValueError, "whole number"),
    ],
)
def test_bad_arguments(args, error, match):
    with pytest.raises(error, match=match):
        triggers.IntervalTrigger(*args)
