import numpy
import pytest

from chainer import optimizers

DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def reference(problem, lr, eps, steps=3):
    w = problem.W0.copy()
    h = numpy.zeros_like(w)
    for _ in range(steps):
        g = problem.grad(w)
        h = h + g * g
        w = w - lr * g / (numpy.sqrt(h) + eps)
    return w


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("kwargs", [{}, {"lr": 0.5, "eps": 1e-3}])
def test_matches_reference(problem, dtype, kwargs):
    link = problem.run(optimizers.AdaGrad(**kwargs), dtype)
    ref = reference(problem, kwargs.get("lr", 0.001), kwargs.get("eps", 1e-8))
    problem.check(link, ref, dtype)


def test_float16(problem):
    # eps=1e-8 vanishes in float16; a representable one keeps the comparison meaningful.
    link = problem.run(optimizers.AdaGrad(lr=0.5, eps=1e-3), numpy.float16)
    problem.check(link, reference(problem, 0.5, 1e-3), numpy.float16)


def test_state_and_defaults(problem):
    opt = optimizers.AdaGrad()
    assert (opt.lr, opt.eps) == (0.001, 1e-8)
    assert set(problem.run(opt).w.update_rule.state) == {"h"}
