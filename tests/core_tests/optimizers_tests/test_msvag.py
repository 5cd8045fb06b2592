import numpy
import pytest

from chainer import optimizers


def reference(problem, lr=0.1, beta=0.9, eta=1.0, weight_decay_rate=0.0, steps=3, variance_factor=True):
    w = problem.W0.copy()
    m = numpy.zeros_like(w)
    v = numpy.zeros_like(w)
    for t in range(1, steps + 1):
        g = problem.grad(w)
        m = beta * m + (1 - beta) * g
        v = beta * v + (1 - beta) * g * g
        m_hat = m / (1 - beta**t)
        v_hat = v / (1 - beta**t)
        # rho: the sum of the squared (normalized) weights of the moving average.
        weights = (1 - beta) * beta ** numpy.arange(t) / (1 - beta**t)
        rho = numpy.sum(weights**2)
        if t == 1 or not variance_factor:
            factor = numpy.ones_like(w)
        else:
            s = numpy.maximum(v_hat - m_hat**2, 0) / (1 - rho)
            factor = m_hat**2 / (m_hat**2 + rho * s)
        w = w - eta * (lr * factor * m_hat + weight_decay_rate * w)
    return w


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize(
    "kwargs", [{}, {"lr": 0.2, "beta": 0.5}, {"lr": 0.05, "beta": 0.7, "eta": 0.5, "weight_decay_rate": 0.1}]
)
def test_matches_reference(problem, dtype, kwargs):
    link = problem.run(optimizers.MSVAG(**kwargs), dtype)
    problem.check(link, reference(problem, **kwargs), dtype)


def test_variance_shrinks_steps(problem):
    # The M-SVAG factor is below one once a variance estimate exists.
    assert numpy.abs(reference(problem, steps=3) - reference(problem, steps=3, variance_factor=False)).max() > 1e-3


def test_zero_gradient_element_stays(problem):
    link = problem.OneParamLink(numpy.zeros(3))
    opt = optimizers.MSVAG().setup(link)
    for _ in range(3):
        link.w.grad = numpy.zeros(3)
        opt.update()
    assert numpy.array_equal(link.w.array, numpy.zeros(3))


def test_state_and_defaults(problem):
    opt = optimizers.MSVAG()
    assert (opt.lr, opt.beta, opt.eta, opt.weight_decay_rate) == (0.1, 0.9, 1.0, 0)
    assert set(problem.run(opt).w.update_rule.state) == {"m", "v"}
