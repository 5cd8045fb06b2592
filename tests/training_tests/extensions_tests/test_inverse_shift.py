"""InverseShift: init * (1 + gamma * t) ** -power, stopped at the target."""

import pytest
from _training_testlib import HyperOptimizer, run_schedule, save_and_load

from chainer.training import extensions


def test_decreasing():
    opt = HyperOptimizer(lr=1.0)
    values = run_schedule(extensions.InverseShift("lr", 0.5, 1.0, optimizer=opt), opt, 3)
    assert values == pytest.approx([1.0, 1 / 1.5, 1 / 2.0, 1 / 2.5])


def test_decreasing_with_target():
    opt = HyperOptimizer(lr=1.0)
    values = run_schedule(extensions.InverseShift("lr", 0.5, 1.0, target=0.45, optimizer=opt), opt, 4)
    assert values == pytest.approx([1.0, 1 / 1.5, 0.5, 0.45, 0.45])


def test_increasing_with_target():
    opt = HyperOptimizer(lr=1.0)
    values = run_schedule(extensions.InverseShift("lr", 1.0, -1.0, target=2.5, optimizer=opt), opt, 3)
    assert values == pytest.approx([1.0, 2.0, 2.5, 2.5])


def test_resume():
    opt = HyperOptimizer(lr=1.0)
    ext = extensions.InverseShift("lr", 1.0, 2.0, optimizer=opt)
    run_schedule(ext, opt, 2)
    opt2 = HyperOptimizer(lr=1.0)
    resumed = extensions.InverseShift("lr", 1.0, 2.0, optimizer=opt2)
    save_and_load(ext, resumed)
    assert run_schedule(resumed, opt2, 1) == pytest.approx([1 / 9, 1 / 16])


def test_negative_gamma():
    with pytest.raises(ValueError, match="negative gamma"):
        extensions.InverseShift("lr", -1.0, 1.0)
