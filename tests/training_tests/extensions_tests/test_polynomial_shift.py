"""PolynomialShift: init * max(1 - t / max_count, 0) ** rate."""

import pytest
from _training_testlib import HyperOptimizer, run_schedule, save_and_load

from chainer.training import extensions


def test_schedule_reaches_zero():
    opt = HyperOptimizer(lr=1.0)
    values = run_schedule(extensions.PolynomialShift("lr", 2.0, 4, optimizer=opt), opt, 5)
    assert values == pytest.approx([1.0, 0.5625, 0.25, 0.0625, 0.0, 0.0])


def test_target_is_a_floor():
    opt = HyperOptimizer(lr=1.0)
    values = run_schedule(extensions.PolynomialShift("lr", 2.0, 4, target=0.1, optimizer=opt), opt, 5)
    assert values == pytest.approx([1.0, 0.5625, 0.25, 0.1, 0.1, 0.1])


def test_target_is_a_ceiling_for_a_negative_rate():
    # rate -1: init / (1 - t / max_count), growing; stopped at the target once above it.
    opt = HyperOptimizer(lr=1.0)
    values = run_schedule(extensions.PolynomialShift("lr", -1.0, 10, target=1.5, optimizer=opt), opt, 5)
    expected = [1.0] + [min(1.0 / (1 - t / 10), 1.5) for t in range(1, 6)]
    assert values == pytest.approx(expected)
    assert values[-1] == 1.5


def test_resume():
    opt = HyperOptimizer(lr=2.0)
    ext = extensions.PolynomialShift("lr", 1.0, 10, optimizer=opt)
    run_schedule(ext, opt, 3)
    opt2 = HyperOptimizer(lr=2.0)
    resumed = extensions.PolynomialShift("lr", 1.0, 10, optimizer=opt2)
    save_and_load(ext, resumed)
    assert run_schedule(resumed, opt2, 1) == pytest.approx([1.4, 1.2])


def test_bad_max_count():
    with pytest.raises(ValueError, match="max_count must be positive"):
        extensions.PolynomialShift("lr", 1.0, 0)
