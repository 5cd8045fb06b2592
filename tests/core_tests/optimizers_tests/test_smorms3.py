import numpy
import pytest

from chainer import optimizers


def reference(problem, lr, eps, steps=3):
    w = problem.W0.copy()
    mem = numpy.ones_like(w)
    g1 = numpy.zeros_like(w)
    g2 = numpy.zeros_like(w)
    for _ in range(steps):
        g = problem.grad(w)
        r = 1.0 / (mem + 1.0)
        g1 = (1 - r) * g1 + r * g
        g2 = (1 - r) * g2 + r * g * g
        x = g1 * g1 / (g2 + eps)
        w = w - g * numpy.minimum(x, lr) / (numpy.sqrt(g2) + eps)
        mem = 1.0 + mem * (1.0 - x)
    return w


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("kwargs", [{}, {"lr": 0.3, "eps": 1e-4}])
def test_matches_reference(problem, dtype, kwargs):
    link = problem.run(optimizers.SMORMS3(**kwargs), dtype)
    problem.check(link, reference(problem, kwargs.get("lr", 0.001), kwargs.get("eps", 1e-16)), dtype)


def test_float16(problem):
    link = problem.run(optimizers.SMORMS3(lr=0.3, eps=1e-4), numpy.float16)
    problem.check(link, reference(problem, 0.3, 1e-4), numpy.float16)


def test_state_and_defaults(problem):
    opt = optimizers.SMORMS3()
    assert (opt.lr, opt.eps) == (0.001, 1e-16)
    state = problem.run(opt, steps=1).w.update_rule.state
    assert set(state) == {"mem", "g", "g2"}
