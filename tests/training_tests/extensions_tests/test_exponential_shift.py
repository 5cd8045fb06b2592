"""ExponentialShift: init * rate ** t, stopped at the target."""

import pytest
from _training_testlib import HyperOptimizer, run_schedule, save_and_load

from chainer.training import extensions


def test_decreasing_with_target():
    opt = HyperOptimizer(lr=1.0)
    values = run_schedule(extensions.ExponentialShift("lr", 0.5, target=0.1, optimizer=opt), opt, 5)
    assert values == pytest.approx([1.0, 0.5, 0.25, 0.125, 0.1, 0.1])


def test_increasing_with_target():
    opt = HyperOptimizer(x=0.0)
    values = run_schedule(extensions.ExponentialShift("x", 2.0, init=1.0, target=5.0, optimizer=opt), opt, 4)
    assert values == pytest.approx([1.0, 2.0, 4.0, 5.0, 5.0])


def test_without_target():
    opt = HyperOptimizer(lr=3.0)
    values = run_schedule(extensions.ExponentialShift("lr", 0.1, optimizer=opt), opt, 3)
    assert values == pytest.approx([3.0, 0.3, 0.03, 0.003])


def test_resume_continues_from_the_last_value():
    opt = HyperOptimizer(lr=1.0)
    ext = extensions.ExponentialShift("lr", 0.5, optimizer=opt)
    run_schedule(ext, opt, 3)
    opt2 = HyperOptimizer(lr=1.0)
    resumed = extensions.ExponentialShift("lr", 0.5, optimizer=opt2)
    save_and_load(ext, resumed)
    assert run_schedule(resumed, opt2, 2) == pytest.approx([0.125, 0.0625, 0.03125])


def test_negative_rate():
    with pytest.raises(ValueError, match="negative rate"):
        extensions.ExponentialShift("lr", -0.5)


def test_missing_attribute():
    opt = HyperOptimizer(lr=1.0)
    with pytest.raises(AttributeError, match="has no attribute 'alpha'"):
        run_schedule(extensions.ExponentialShift("alpha", 0.5, optimizer=opt), opt, 1)
