import math
import warnings

import numpy
import pytest

import chainer
from chainer import optimizers
from chainer.optimizers import adam

DEFAULTS = {
    "alpha": 0.001,
    "beta1": 0.9,
    "beta2": 0.999,
    "eps": 1e-8,
    "eta": 1.0,
    "weight_decay_rate": 0,
    "amsgrad": False,
    "adabound": False,
    "final_lr": 0.1,
    "gamma": 0.001,
}


def reference(problem, steps=3, alphas=None, **kwargs):
    hp = {**DEFAULTS, **kwargs}
    alphas = alphas or [hp["alpha"]] * steps
    b1, b2 = hp["beta1"], hp["beta2"]
    w = problem.W0.copy()
    m = numpy.zeros_like(w)
    v = numpy.zeros_like(w)
    vmax = numpy.zeros_like(w)
    for t, alpha in enumerate(alphas, start=1):
        g = problem.grad(w)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        vmax = numpy.maximum(vmax, v)
        m_hat = m / (1 - b1**t)
        v_hat = (vmax if hp["amsgrad"] else v) / (1 - b2**t)
        # Adam's step written with the bias corrections folded into the rate.
        rate = alpha * math.sqrt(1 - b2**t) / (1 - b1**t) / (numpy.sqrt(v_hat * (1 - b2**t)) + hp["eps"])
        if hp["adabound"]:
            final = hp["final_lr"] * alpha / alphas[0]
            rate = numpy.clip(rate, final * (1 - 1 / (hp["gamma"] * t + 1)), final * (1 + 1 / (hp["gamma"] * t)))
        w = w - hp["eta"] * (rate * m_hat * (1 - b1**t) + hp["weight_decay_rate"] * w)
    return w


CASES = [
    (optimizers.Adam, {}),
    (optimizers.Adam, {"alpha": 0.1, "beta1": 0.5, "beta2": 0.6, "eps": 1e-3, "eta": 0.5}),
    (optimizers.Adam, {"alpha": 0.1, "weight_decay_rate": 0.2}),
    (optimizers.AdamW, {"alpha": 0.05, "weight_decay_rate": 0.1, "eta": 2.0}),
    (optimizers.AMSGrad, {"alpha": 0.3, "beta2": 0.1}),
    (optimizers.AdaBound, {"alpha": 0.01, "final_lr": 0.1, "gamma": 0.5}),
    (optimizers.AMSBound, {"alpha": 0.3, "beta2": 0.1, "final_lr": 0.2, "gamma": 0.5}),
]
IMPLIED = {
    optimizers.Adam: {},
    optimizers.AdamW: {},
    optimizers.AMSGrad: {"amsgrad": True},
    optimizers.AdaBound: {"adabound": True},
    optimizers.AMSBound: {"amsgrad": True, "adabound": True},
}


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
@pytest.mark.parametrize(("cls", "kwargs"), CASES)
def test_matches_reference(problem, cls, kwargs, dtype, device, cpu_code):
    if cpu_code is not None and device != "@numpy":
        pytest.skip("the compiled kernels are for the CPU")
    link = problem.run(cls(**kwargs), dtype, device=device)
    problem.check(link, reference(problem, **kwargs, **IMPLIED[cls]), dtype)
    if cpu_code is not None:
        # float16 parameters keep float32 moments, which the kernel declines to NumPy.
        assert cpu_code["adam"] == (0 if dtype == numpy.float16 else problem.STEPS)


@pytest.mark.parametrize(("cls", "kwargs"), CASES[4:])
def test_variants_really_differ_from_adam(problem, cls, kwargs):
    plain = reference(problem, **kwargs)
    variant = reference(problem, **kwargs, **IMPLIED[cls])
    assert numpy.abs(plain - variant).max() > 1e-3


def test_adabound_bounds_follow_alpha_schedules(problem):
    link = problem.OneParamLink(problem.W0.copy())
    opt = optimizers.AdaBound(alpha=0.01, final_lr=0.1, gamma=0.5).setup(link)
    alphas = [0.01, 0.005, 0.0025]
    for alpha in alphas:
        opt.alpha = alpha
        opt.update(problem.loss, link)
    problem.check(link, reference(problem, alphas=alphas, adabound=True, final_lr=0.1, gamma=0.5), numpy.float64)


def test_fp16_keeps_float32_moments(problem):
    link = problem.run(optimizers.Adam(alpha=0.1), numpy.float16)
    state = link.w.update_rule.state
    assert state["m"].dtype == numpy.float32 and state["v"].dtype == numpy.float32


def test_fp32_update_on_float16(problem, device, cpu_code):
    if cpu_code is not None and device != "@numpy":
        pytest.skip("the compiled kernels are for the CPU")
    link = problem.run(optimizers.Adam(alpha=0.1), numpy.float16, fp32_update=True, device=device)
    problem.check(link, reference(problem, alpha=0.1), numpy.float16)
    if cpu_code is not None:
        assert cpu_code["adam"] == problem.STEPS  # on the float32 master copy


def test_alpha_t_and_deprecated_lr(problem):
    """alpha_t is the bias-corrected step size; lr is its deprecated older name, which
    warns as in Chainer 7 (and alpha_t does not)."""
    opt = optimizers.Adam(alpha=0.1, beta1=0.8, beta2=0.9)
    with pytest.raises(RuntimeError, match=r"Adam.alpha_t: the bias-corrected learning rate is undefined before"):
        _ = opt.alpha_t
    link = problem.run(opt, steps=2)
    expected = 0.1 * math.sqrt(1 - 0.9**2) / (1 - 0.8**2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert opt.alpha_t == pytest.approx(expected, rel=1e-15)
        assert link.w.update_rule.alpha_t == pytest.approx(expected, rel=1e-15)
    with pytest.warns(DeprecationWarning, match=r"Adam.lr has been renamed to Adam.alpha_t") as record:
        assert opt.lr == opt.alpha_t
    # Attributed to the library, not to the caller: hidden by Python's default filters.
    assert record[0].filename.endswith("adam.py")
    with pytest.warns(DeprecationWarning, match=r"AdamRule.lr has been renamed"):
        assert link.w.update_rule.lr == opt.alpha_t


def test_state_keys(problem):
    assert set(problem.run(optimizers.Adam()).w.update_rule.state) == {"m", "v"}
    assert set(problem.run(optimizers.AMSGrad()).w.update_rule.state) == {"m", "v", "vhat"}


def test_defaults_and_flags():
    opt = optimizers.Adam()
    assert {k: getattr(opt, k) for k in DEFAULTS} == DEFAULTS
    assert optimizers.AMSBound().hyperparam.amsgrad and optimizers.AMSBound().hyperparam.adabound
    assert not optimizers.AdamW().amsgrad
    assert adam.AdamRule(alpha=0.5).hyperparam.alpha == 0.5
    # Flags are taken for their truth value, as in Chainer 7 (which accepted any value).
    assert optimizers.Adam(amsgrad=0.1).create_update_rule().hyperparam.amsgrad == 0.1
    assert set(problem_state(optimizers.Adam(amsgrad=1))) == {"m", "v", "vhat"}
    with pytest.raises(TypeError, match=r"AdamRule: beta1 must be a real number, got None|AdamRule: beta1 must be"):
        adam.AdamRule(beta1=[0.9])


def problem_state(optimizer):
    """The state an optimizer's rule creates for a 2-element parameter with a gradient."""
    rule = optimizer.create_update_rule()
    p = chainer.Parameter(numpy.ones(2, numpy.float32))
    p.grad = numpy.ones(2, numpy.float32)
    rule.update(p)
    return rule.state


def test_eps_that_underflows_is_refused(problem):
    with pytest.raises(ValueError, match=r"AdamRule: eps=1e-50 underflows to zero in float32"):
        problem.run(optimizers.Adam(eps=1e-50), numpy.float32)
