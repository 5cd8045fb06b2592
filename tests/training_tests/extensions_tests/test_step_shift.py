"""StepShift: init * gamma ** floor(t / step)."""

import pytest
from _training_testlib import HyperOptimizer, run_schedule, save_and_load

from chainer.training import extensions


def test_schedule():
    opt = HyperOptimizer(lr=1.0)
    values = run_schedule(extensions.StepShift("lr", 0.1, 3, optimizer=opt), opt, 7)
    assert values == pytest.approx([1.0, 1.0, 1.0, 0.1, 0.1, 0.1, 0.01, 0.01])


def test_target():
    opt = HyperOptimizer(lr=1.0)
    values = run_schedule(extensions.StepShift("lr", 0.1, 3, target=0.05, optimizer=opt), opt, 7)
    assert values == pytest.approx([1.0, 1.0, 1.0, 0.1, 0.1, 0.1, 0.05, 0.05])


def test_growing_with_target():
    opt = HyperOptimizer(lr=1.0)
    values = run_schedule(extensions.StepShift("lr", 3.0, 2, target=5.0, optimizer=opt), opt, 4)
    assert values == pytest.approx([1.0, 1.0, 3.0, 3.0, 5.0])


def test_resume():
    opt = HyperOptimizer(lr=1.0)
    ext = extensions.StepShift("lr", 0.5, 2, optimizer=opt)
    run_schedule(ext, opt, 3)
    opt2 = HyperOptimizer(lr=1.0)
    resumed = extensions.StepShift("lr", 0.5, 2, optimizer=opt2)
    save_and_load(ext, resumed)
    assert run_schedule(resumed, opt2, 2) == pytest.approx([0.5, 0.25, 0.25])


def test_bad_step():
    with pytest.raises(ValueError, match="step must be positive"):
        extensions.StepShift("lr", 0.5, 0)
