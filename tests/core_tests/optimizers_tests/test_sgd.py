import numpy
import pytest

from chainer import optimizers
from chainer.optimizers import sgd

DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def reference(problem, lr, steps=3):
    w = problem.W0.copy()
    for _ in range(steps):
        w = w - lr * problem.grad(w)
    return w


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kwargs", [{}, {"lr": 0.3}])
def test_matches_reference(problem, dtype, kwargs, device):
    link = problem.run(optimizers.SGD(**kwargs), dtype, device=device)
    problem.check(link, reference(problem, kwargs.get("lr", 0.01)), dtype)


def test_fp32_update_on_float16(problem, device):
    link = problem.run(optimizers.SGD(lr=0.3), numpy.float16, fp32_update=True, device=device)
    problem.check(link, reference(problem, 0.3), numpy.float16)


def test_per_parameter_learning_rate(problem):
    link = problem.OneParamLink(problem.W0.copy())
    opt = optimizers.SGD(lr=0.1).setup(link)
    link.w.update_rule.hyperparam.lr = 0.2
    for _ in range(3):
        opt.update(problem.loss, link)
    problem.check(link, reference(problem, 0.2), numpy.float64)


def test_learning_rate_change_reaches_the_rules(problem):
    link = problem.OneParamLink(problem.W0.copy())
    opt = optimizers.SGD(lr=0.1).setup(link)
    opt.update(problem.loss, link)
    opt.lr = 0.4
    opt.update(problem.loss, link)
    w = problem.W0 - 0.1 * problem.grad(problem.W0)
    w = w - 0.4 * problem.grad(w)
    problem.check(link, w, numpy.float64)


def test_hyperparameters():
    opt = optimizers.SGD()
    assert opt.lr == 0.01 and opt.hyperparam.lr == 0.01
    rule = sgd.SGDRule(lr=0.5)
    assert rule.hyperparam.lr == 0.5
    assert sgd.SGDRule().hyperparam.lr == 0.01
    with pytest.raises(TypeError, match=r"SGD: lr must be a real number, got '0.1'"):
        optimizers.SGD(lr="0.1")
