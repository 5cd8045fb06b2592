"""MicroAverage: sum of numerators over sum of denominators per interval."""

import pytest
from _training_testlib import FakeTrainer, save_and_load

import chainer
from chainer import training
from chainer.training import extensions


def run(ext, observations, trainer=None):
    trainer = trainer or FakeTrainer()
    reported = []
    for obs in observations:
        trainer.updater.update()
        trainer.observation = dict(obs)
        with chainer.Reporter().scope(trainer.observation):
            ext(trainer)
        if "acc" in trainer.observation:
            reported.append((trainer.updater.iteration, trainer.observation["acc"]))
    return reported


OBS = [{"correct": 3, "total": 4}, {"correct": 1, "total": 4}, {"correct": 2, "total": 2}, {"correct": 0, "total": 5}]


def test_ratio_of_sums():
    ext = extensions.MicroAverage("correct", "total", "acc", trigger=(2, "iteration"))
    # (3 + 1) / (4 + 4) at 2; (2 + 0) / (2 + 5) at 4 (the mean of ratios would differ).
    assert run(ext, OBS) == [(2, pytest.approx(0.5)), (4, pytest.approx(2 / 7))]
    assert ext.priority == training.PRIORITY_EDITOR


def test_variables_and_arrays():
    import numpy

    ext = extensions.MicroAverage("correct", "total", "acc", trigger=(1, "iteration"))
    obs = [{"correct": chainer.Variable(numpy.array(3.0)), "total": numpy.array(6)}]
    assert run(ext, obs) == [(1, pytest.approx(0.5))]


def test_missing_keys_are_skipped():
    ext = extensions.MicroAverage("correct", "total", "acc", trigger=(1, "iteration"))
    assert run(ext, [{"correct": 1}, {}]) == []


def test_resume_mid_interval():
    ext = extensions.MicroAverage("correct", "total", "acc", trigger=(2, "iteration"))
    trainer = FakeTrainer()
    run(ext, OBS[:3], trainer)
    resumed = extensions.MicroAverage("correct", "total", "acc", trigger=(2, "iteration"))
    save_and_load(ext, resumed)
    assert run(resumed, OBS[3:], trainer) == [(4, pytest.approx(2 / 7))]
