import numpy
import pytest

from chainer import optimizers


def reference(problem, lr, alpha, momentum, eps, steps=3):
    w = problem.W0.copy()
    n = numpy.zeros_like(w)  # second moment
    g_avg = numpy.zeros_like(w)  # first moment
    delta = numpy.zeros_like(w)
    for _ in range(steps):
        g = problem.grad(w)
        n = alpha * n + (1 - alpha) * g**2
        g_avg = alpha * g_avg + (1 - alpha) * g
        delta = momentum * delta - lr * g / numpy.sqrt(n - g_avg**2 + eps)
        w = w + delta
    return w


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("kwargs", [{}, {"lr": 0.01, "alpha": 0.8, "momentum": 0.5, "eps": 1e-2}])
def test_matches_reference(problem, dtype, kwargs):
    link = problem.run(optimizers.RMSpropGraves(**kwargs), dtype)
    ref = reference(
        problem, kwargs.get("lr", 1e-4), kwargs.get("alpha", 0.95), kwargs.get("momentum", 0.9), kwargs.get("eps", 1e-4)
    )
    problem.check(link, ref, dtype)


def test_float16(problem):
    link = problem.run(optimizers.RMSpropGraves(lr=0.01, alpha=0.8, momentum=0.5, eps=1e-2), numpy.float16)
    problem.check(link, reference(problem, 0.01, 0.8, 0.5, 1e-2), numpy.float16)


def test_state_and_defaults(problem):
    opt = optimizers.RMSpropGraves()
    assert (opt.lr, opt.alpha, opt.momentum, opt.eps) == (1e-4, 0.95, 0.9, 1e-4)
    assert set(problem.run(opt).w.update_rule.state) == {"n", "g", "delta"}
