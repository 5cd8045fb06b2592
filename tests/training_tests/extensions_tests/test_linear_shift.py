"""LinearShift: v1 until t1, linear to v2 at t2, v2 after."""

import pytest
from _training_testlib import HyperOptimizer, run_schedule, save_and_load

from chainer.training import extensions


def test_schedule():
    opt = HyperOptimizer(lr=9.0)
    values = run_schedule(extensions.LinearShift("lr", (1.0, 0.0), (2, 6), optimizer=opt), opt, 7)
    assert values == pytest.approx([1.0, 1.0, 1.0, 0.75, 0.5, 0.25, 0.0, 0.0])


def test_resume():
    opt = HyperOptimizer(lr=0.0)
    ext = extensions.LinearShift("lr", (0.0, 1.0), (0, 4), optimizer=opt)
    run_schedule(ext, opt, 2)
    opt2 = HyperOptimizer(lr=0.0)
    resumed = extensions.LinearShift("lr", (0.0, 1.0), (0, 4), optimizer=opt2)
    save_and_load(ext, resumed)
    assert run_schedule(resumed, opt2, 3) == pytest.approx([0.5, 0.75, 1.0, 1.0])


@pytest.mark.parametrize(
    "value_range,time_range,match",
    [((1.0,), (0, 1), "pairs"), ((1.0, 0.0), (3, 3), "increasing")],
)
def test_bad_ranges(value_range, time_range, match):
    with pytest.raises(ValueError, match=match):
        extensions.LinearShift("lr", value_range, time_range)
