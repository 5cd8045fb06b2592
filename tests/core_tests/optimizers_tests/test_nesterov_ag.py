import numpy
import pytest

from chainer import optimizers

DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def reference(problem, lr, mu, steps=3):
    w = problem.W0.copy()
    v = numpy.zeros_like(w)
    for _ in range(steps):
        g = problem.grad(w)
        v = mu * v - lr * g
        w = w + mu * mu * v - (1 + mu) * lr * g
    return w


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kwargs", [{}, {"lr": 0.1, "momentum": 0.6}])
def test_matches_reference(problem, dtype, kwargs):
    link = problem.run(optimizers.NesterovAG(**kwargs), dtype)
    ref = reference(problem, kwargs.get("lr", 0.01), kwargs.get("momentum", 0.9))
    problem.check(link, ref, dtype)


def test_state_and_defaults(problem):
    opt = optimizers.NesterovAG()
    assert (opt.lr, opt.momentum) == (0.01, 0.9)
    assert set(problem.run(opt).w.update_rule.state) == {"v"}
