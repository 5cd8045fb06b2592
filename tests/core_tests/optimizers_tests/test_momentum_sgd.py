import numpy
import pytest

from chainer import optimizers

DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def reference(problem, lr, momentum, steps=3):
    w = problem.W0.copy()
    v = numpy.zeros_like(w)
    for _ in range(steps):
        v = momentum * v - lr * problem.grad(w)
        w = w + v
    return w


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kwargs", [{}, {"lr": 0.2, "momentum": 0.5}])
def test_matches_reference(problem, dtype, kwargs, device, cpu_code):
    if cpu_code is not None and device != "@numpy":
        pytest.skip("the compiled kernels are for the CPU")
    link = problem.run(optimizers.MomentumSGD(**kwargs), dtype, device=device)
    ref = reference(problem, kwargs.get("lr", 0.01), kwargs.get("momentum", 0.9))
    problem.check(link, ref, dtype)
    if cpu_code is not None:
        assert cpu_code["momentum_sgd"] == (0 if dtype == numpy.float16 else problem.STEPS)


def test_fp32_update_on_float16(problem, device):
    link = problem.run(optimizers.MomentumSGD(lr=0.2, momentum=0.5), numpy.float16, fp32_update=True, device=device)
    problem.check(link, reference(problem, 0.2, 0.5), numpy.float16)
    state = link.w.update_rule.state
    assert state["v"].dtype == numpy.float32


def test_state_and_defaults(problem):
    opt = optimizers.MomentumSGD()
    assert (opt.lr, opt.momentum) == (0.01, 0.9)
    link = problem.run(opt)
    assert set(link.w.update_rule.state) == {"v"}
