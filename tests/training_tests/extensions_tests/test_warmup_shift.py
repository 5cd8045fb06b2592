"""WarmupShift: linear from warmup_start to init over warmup_iter calls, then untouched."""

import pytest
from _training_testlib import HyperOptimizer, run_schedule, save_and_load

from chainer.training import extensions


def test_schedule():
    opt = HyperOptimizer(lr=1.0)
    values = run_schedule(extensions.WarmupShift("lr", 0.1, 4, 1.0, optimizer=opt), opt, 4)
    assert values == pytest.approx([0.1, 0.325, 0.55, 0.775, 1.0])


def test_leaves_the_attribute_after_the_warmup():
    opt = HyperOptimizer(lr=1.0)
    ext = extensions.WarmupShift("lr", 0.0, 2, 1.0, optimizer=opt)
    run_schedule(ext, opt, 2)
    opt.lr = 0.3  # another schedule takes over
    ext(None)
    assert opt.lr == 0.3


def test_resume_inside_the_warmup():
    opt = HyperOptimizer(lr=1.0)
    ext = extensions.WarmupShift("lr", 0.0, 4, 1.0, optimizer=opt)
    run_schedule(ext, opt, 1)
    opt2 = HyperOptimizer(lr=1.0)
    resumed = extensions.WarmupShift("lr", 0.0, 4, 1.0, optimizer=opt2)
    save_and_load(ext, resumed)
    assert run_schedule(resumed, opt2, 3) == pytest.approx([0.25, 0.5, 0.75, 1.0])


def test_bad_warmup_iter():
    with pytest.raises(ValueError, match="warmup_iter must be positive"):
        extensions.WarmupShift("lr", 0.0, 0, 1.0)
