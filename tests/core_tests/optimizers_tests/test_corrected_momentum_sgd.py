import numpy
import pytest

from chainer import optimizers

DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def reference(problem, lrs, momentum):
    # The velocity accumulates raw gradients; the rate applies to the step.
    w = problem.W0.copy()
    v = numpy.zeros_like(w)
    for lr in lrs:
        v = momentum * v - problem.grad(w)
        w = w + lr * v
    return w


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kwargs", [{}, {"lr": 0.2, "momentum": 0.5}])
def test_matches_reference(problem, dtype, kwargs):
    link = problem.run(optimizers.CorrectedMomentumSGD(**kwargs), dtype)
    lr = kwargs.get("lr", 0.01)
    problem.check(link, reference(problem, [lr] * 3, kwargs.get("momentum", 0.9)), dtype)


def test_rate_change_takes_effect_at_once(problem):
    link = problem.OneParamLink(problem.W0.copy())
    opt = optimizers.CorrectedMomentumSGD(lr=0.1, momentum=0.8).setup(link)
    for lr in (0.1, 0.3, 0.05):
        opt.lr = lr
        opt.update(problem.loss, link)
    problem.check(link, reference(problem, [0.1, 0.3, 0.05], 0.8), numpy.float64)


def test_defaults():
    opt = optimizers.CorrectedMomentumSGD()
    assert (opt.lr, opt.momentum) == (0.01, 0.9)
