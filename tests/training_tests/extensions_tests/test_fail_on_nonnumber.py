"""FailOnNonNumber stops a diverging run and names the parameter."""

import numpy
import pytest
from _training_testlib import make_trainer

from chainer.training import extensions


def test_diverging_run_is_stopped(tmp_path):
    trainer = make_trainer(tmp_path, stop=(50, "epoch"), lr=1e30)
    trainer.extend(extensions.FailOnNonNumber())
    with pytest.raises(RuntimeError) as info, numpy.errstate(all="ignore"):
        trainer.run(show_loop_exception_msg=False)
    message = str(info.value)
    assert "FailOnNonNumber" in message and "NaN or Inf" in message and "diverged" in message
    assert "optimizer 'main'" in message
    name = message.split("parameter '")[1].split("'")[0]
    model = trainer.updater.get_optimizer("main").target
    params = dict(model.namedparams())
    assert name in params
    array = params[name].grad if message.startswith("FailOnNonNumber: the gradient") else params[name].array
    assert not numpy.isfinite(array).all()
    assert trainer.updater.iteration < 50 * 5


def test_names_the_first_bad_parameter(tmp_path):
    trainer = make_trainer(tmp_path, stop=(3, "iteration"))
    model = trainer.updater.get_optimizer("main").target

    def poison(trainer):
        if trainer.updater.iteration == 2:
            model.predictor.l2.b.array[1] = numpy.inf

    trainer.extend(poison, priority=1000)
    trainer.extend(extensions.FailOnNonNumber(check_grad=False))
    with pytest.raises(RuntimeError, match=r"parameter '/predictor/l2/b' .* after iteration 2"):
        trainer.run(show_loop_exception_msg=False)


def test_gradients_are_checked(tmp_path):
    trainer = make_trainer(tmp_path, stop=(3, "iteration"))
    model = trainer.updater.get_optimizer("main").target

    def poison(trainer):
        model.predictor.l1.W.grad[...] = numpy.nan

    trainer.extend(poison, priority=1000)
    trainer.extend(extensions.FailOnNonNumber())
    with pytest.raises(RuntimeError, match=r"the gradient of the parameter '/predictor/l1/W'"):
        trainer.run(show_loop_exception_msg=False)


def test_healthy_run_finishes(tmp_path):
    trainer = make_trainer(tmp_path, stop=(2, "epoch"))
    trainer.extend(extensions.FailOnNonNumber())
    trainer.run()
    assert trainer.updater.epoch == 2
