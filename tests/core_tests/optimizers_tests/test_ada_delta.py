import numpy
import pytest

from chainer import optimizers

DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def reference(problem, rho, eps, steps=3):
    w = problem.W0.copy()
    eg2 = numpy.zeros_like(w)  # running average of squared gradients
    edx2 = numpy.zeros_like(w)  # running average of squared updates
    for _ in range(steps):
        g = problem.grad(w)
        eg2 = rho * eg2 + (1 - rho) * g**2
        dx = -numpy.sqrt(edx2 + eps) / numpy.sqrt(eg2 + eps) * g
        edx2 = rho * edx2 + (1 - rho) * dx**2
        w = w + dx
    return w


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("kwargs", [{}, {"rho": 0.5, "eps": 1e-2}])
def test_matches_reference(problem, dtype, kwargs):
    link = problem.run(optimizers.AdaDelta(**kwargs), dtype)
    ref = reference(problem, kwargs.get("rho", 0.95), kwargs.get("eps", 1e-6))
    problem.check(link, ref, dtype)


def test_float16(problem):
    link = problem.run(optimizers.AdaDelta(rho=0.5, eps=1e-2), numpy.float16)
    problem.check(link, reference(problem, 0.5, 1e-2), numpy.float16)


def test_state_and_defaults(problem):
    opt = optimizers.AdaDelta()
    assert (opt.rho, opt.eps) == (0.95, 1e-6)
    assert set(problem.run(opt).w.update_rule.state) == {"msg", "msdx"}
