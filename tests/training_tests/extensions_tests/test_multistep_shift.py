"""MultistepShift: init * gamma ** (number of step values reached)."""

import pytest
from _training_testlib import HyperOptimizer, run_schedule, save_and_load

from chainer.training import extensions


def test_schedule():
    opt = HyperOptimizer(lr=5.0)
    values = run_schedule(extensions.MultistepShift("lr", 0.1, [2, 5], 1.0, optimizer=opt), opt, 6)
    assert values == pytest.approx([1.0, 1.0, 0.1, 0.1, 0.1, 0.01, 0.01])


def test_init_from_the_optimizer():
    opt = HyperOptimizer(lr=2.0)
    values = run_schedule(extensions.MultistepShift("lr", 0.5, [1], None, optimizer=opt), opt, 2)
    assert values == pytest.approx([2.0, 1.0, 1.0])


def test_resume_applies_the_reached_step_at_once():
    opt = HyperOptimizer(lr=1.0)
    ext = extensions.MultistepShift("lr", 0.1, [2, 5], 1.0, optimizer=opt)
    run_schedule(ext, opt, 3)
    opt2 = HyperOptimizer(lr=1.0)
    resumed = extensions.MultistepShift("lr", 0.1, [2, 5], 1.0, optimizer=opt2)
    save_and_load(ext, resumed)
    # The first update after resuming uses 0.1, as in the uninterrupted run.
    assert run_schedule(resumed, opt2, 3) == pytest.approx([0.1, 0.1, 0.01, 0.01])


def test_decreasing_steps_are_an_error():
    with pytest.raises(ValueError, match="step_value must be increasing"):
        extensions.MultistepShift("lr", 0.1, [5, 2], 1.0)
