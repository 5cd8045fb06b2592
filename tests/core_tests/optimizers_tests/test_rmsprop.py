import numpy
import pytest

from chainer import optimizers

DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def reference(problem, lr, alpha, eps, inside, steps=3):
    w = problem.W0.copy()
    ms = numpy.zeros_like(w)
    for _ in range(steps):
        g = problem.grad(w)
        ms = alpha * ms + (1 - alpha) * g**2
        denom = numpy.sqrt(ms + eps) if inside else numpy.sqrt(ms) + eps
        w = w - lr * g / denom
    return w


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize(
    "kwargs", [{}, {"lr": 0.05, "alpha": 0.9, "eps": 1e-3}, {"lr": 0.05, "eps": 0.5, "eps_inside_sqrt": True}]
)
def test_matches_reference(problem, dtype, kwargs):
    link = problem.run(optimizers.RMSprop(**kwargs), dtype)
    ref = reference(
        problem,
        kwargs.get("lr", 0.01),
        kwargs.get("alpha", 0.99),
        kwargs.get("eps", 1e-8),
        kwargs.get("eps_inside_sqrt", False),
    )
    problem.check(link, ref, dtype)


def test_float16(problem):
    link = problem.run(optimizers.RMSprop(lr=0.05, alpha=0.9, eps=1e-3), numpy.float16)
    problem.check(link, reference(problem, 0.05, 0.9, 1e-3, False), numpy.float16)


def test_state_defaults_and_flag_check(problem):
    opt = optimizers.RMSprop()
    assert (opt.lr, opt.alpha, opt.eps, opt.eps_inside_sqrt) == (0.01, 0.99, 1e-8, False)
    assert set(problem.run(opt).w.update_rule.state) == {"ms"}
    # A flag is used for its truth value, as in Chainer 7: eps_inside_sqrt=1 is True.
    assert optimizers.RMSprop(eps_inside_sqrt=1).create_update_rule().hyperparam.eps_inside_sqrt == 1
