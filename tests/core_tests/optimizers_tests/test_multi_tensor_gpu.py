"""The multi-tensor optimizer update (chainer/optimizers/_multi_tensor.py).

On a GPU: several parameters (of sizes 0, 1 and more) updated for several steps through
``optimizer.update()`` by the multi-tensor kernels must equal, bit for bit, the same
updates by the per-parameter kernels (the module switched off), states and ``t``
included, and a NumPy float64 reference of the documented formulas within a tolerance;
a learning-rate change between steps, a disabled rule, per-rule hyperparameters and
mixed dtypes (several groups, float16 on the per-parameter path) too. On the CPU: which
rules and arrays the module takes, with a stand-in array type.
"""

import numpy
import pytest

import chainer
from chainer import optimizers
from chainer.backends import cuda
from chainer.optimizers import _multi_tensor

SHAPES = [(3, 4), (1,), (0,), (7,), (2, 3, 5), (130, 9)]
STEPS = 4

CASES = {
    "sgd": lambda: optimizers.SGD(lr=0.1),
    "momentum_sgd": lambda: optimizers.MomentumSGD(lr=0.1, momentum=0.9),
    "adam": lambda: optimizers.Adam(alpha=0.01),
    "amsgrad": lambda: optimizers.AMSGrad(alpha=0.01),
    "adamw": lambda: optimizers.Adam(alpha=0.01, weight_decay_rate=0.01, eta=0.5),
    "adabound": lambda: optimizers.AdaBound(alpha=0.01, final_lr=0.05),
    "amsbound": lambda: optimizers.AMSBound(alpha=0.01, final_lr=0.05),
}

gpu = [
    pytest.mark.gpu,
    pytest.mark.skipif(not cuda.available, reason="needs a GPU: " + str(cuda._unavailable_reason())),
]


def _link(dtypes, seed=0, shapes=SHAPES):
    rng = numpy.random.RandomState(seed)
    link = chainer.Link()
    with link.init_scope():
        for i, shape in enumerate(shapes):
            dtype = dtypes[i % len(dtypes)]
            setattr(link, f"p{i}", chainer.Parameter(rng.standard_normal(shape).astype(dtype)))
    return link


def _grads(link, step):
    rng = numpy.random.RandomState(100 + step)
    return [rng.standard_normal(p.shape).astype(p.dtype) for p in link.params()]


def _train(make_opt, dtypes, disabled, monkeypatch, between=None, steps=STEPS):
    """Parameters, states and t after ``steps`` updates on the GPU, and the number of
    multi-tensor launches made."""
    link = _link(dtypes)
    link.to_device("@cupy:0")
    opt = make_opt().setup(link)
    launches = 0
    monkeypatch.setattr(_multi_tensor, "_disabled", disabled)
    for step in range(steps):
        for p, g in zip(link.params(), _grads(link, step)):
            p.grad = cuda.cupy.asarray(g)
        if between is not None:
            between(step, opt, link)
        opt.update()
        if not disabled:
            launches += len(_multi_tensor.for_optimizer(opt)._staged)
    monkeypatch.setattr(_multi_tensor, "_disabled", False)
    params = [cuda.to_cpu(p.array) for p in link.params()]
    states = [{k: cuda.to_cpu(v) for k, v in (p.update_rule.state or {}).items()} for p in link.params()]
    return params, states, [p.update_rule.t for p in link.params()], opt.t, launches


def _assert_same_bits(new, old):
    for i, (a, b) in enumerate(zip(new[0], old[0])):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), f"parameter {i}: max diff {numpy.abs(a - b).max()}"
    for i, (a, b) in enumerate(zip(new[1], old[1])):
        assert a.keys() == b.keys()
        for k in a:
            assert a[k].tobytes() == b[k].tobytes(), f"state {k} of parameter {i}"
    assert new[2] == old[2] and new[3] == old[3]


def _reference(name, link, steps=STEPS):
    """NumPy float64 updates by the formulas of the rules' docstrings."""
    ps = [p.array.astype(numpy.float64) for p in link.params()]
    m = [numpy.zeros_like(p) for p in ps]
    v = [numpy.zeros_like(p) for p in ps]
    vhat = [numpy.zeros_like(p) for p in ps]
    for step in range(steps):
        t = step + 1
        for i, g in enumerate(_grads(link, step)):
            g = g.astype(numpy.float64)
            if name == "sgd":
                ps[i] -= 0.1 * g
            elif name == "momentum_sgd":
                v[i] = 0.9 * v[i] - 0.1 * g
                ps[i] += v[i]
            else:
                m[i] += 0.1 * (g - m[i])
                v[i] += 0.001 * (g * g - v[i])
                vhat[i] = numpy.maximum(vhat[i], v[i])
                second = vhat[i] if name == "amsgrad" else v[i]
                lr = 0.01 * numpy.sqrt(1 - 0.999**t) / (1 - 0.9**t)
                ps[i] -= lr * m[i] / (numpy.sqrt(second) + 1e-8)
    return ps


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize("name", sorted(CASES))
class TestAgainstPerParameter:
    pytestmark = gpu

    def test_bits_states_and_t(self, name, dtype, monkeypatch):
        new = _train(CASES[name], [dtype], False, monkeypatch)
        old = _train(CASES[name], [dtype], True, monkeypatch)
        # The first update makes the states on the per-parameter path; then one launch a step.
        assert new[4] == STEPS - 1
        _assert_same_bits(new, old)
        assert new[2] == [STEPS] * len(SHAPES) and new[3] == STEPS

    def test_reference(self, name, dtype, monkeypatch):
        if name in ("adamw", "adabound", "amsbound"):
            pytest.skip("the reference covers the plain formulas; these are compared with the per-parameter kernels")
        new = _train(CASES[name], [dtype], False, monkeypatch)
        tol = 1e-5 if dtype == numpy.float32 else 1e-12
        for got, want in zip(new[0], _reference(name, _link([dtype]))):
            numpy.testing.assert_allclose(got, want, rtol=tol, atol=tol)


@pytest.mark.gpu
@pytest.mark.skipif(not cuda.available, reason="needs a GPU")
class TestSchedules:
    def test_learning_rate_change_between_steps(self, monkeypatch):
        def halve(step, opt, link):
            if step == 2:
                opt.alpha *= 0.5

        new = _train(CASES["adam"], [numpy.float32], False, monkeypatch, halve)
        old = _train(CASES["adam"], [numpy.float32], True, monkeypatch, halve)
        _assert_same_bits(new, old)

    def test_per_rule_hyperparameter_and_disabled_rule(self, monkeypatch):
        def tweak(step, opt, link):
            if step == 1:
                link.p0.update_rule.hyperparam.lr = 0.5  # its own group
                link.p3.update_rule.enabled = False

        new = _train(CASES["momentum_sgd"], [numpy.float32], False, monkeypatch, tweak)
        old = _train(CASES["momentum_sgd"], [numpy.float32], True, monkeypatch, tweak)
        _assert_same_bits(new, old)
        assert new[2][3] == 1  # t of the disabled rule stopped
        before = _link([numpy.float32])
        assert not numpy.array_equal(new[0][3], before.p3.array)

    def test_mixed_dtypes_are_separate_groups(self, monkeypatch):
        dtypes = [numpy.float32, numpy.float64, numpy.float16]
        new = _train(CASES["adam"], dtypes, False, monkeypatch)
        old = _train(CASES["adam"], dtypes, True, monkeypatch)
        _assert_same_bits(new, old)
        assert new[4] == 2 * (STEPS - 1)  # float32 and float64; float16 per parameter

    def test_stage_then_launch(self, monkeypatch):
        link = _link([numpy.float32])
        link.to_device("@cupy:0")
        opt = optimizers.SGD(lr=0.1).setup(link)
        for p in link.params():
            p.grad = cuda.cupy.ones(p.shape, numpy.float32)
        opt.update()  # makes the states
        before = [cuda.to_cpu(p.array) for p in link.params()]
        mtu = _multi_tensor.for_optimizer(opt)
        assert mtu.stage(link.params()) == []
        staged = [cuda.to_cpu(p.array) for p in link.params()]
        mtu.launch()
        for b, s, p in zip(before, staged, link.params()):
            assert numpy.array_equal(b, s)  # stage launches nothing
            numpy.testing.assert_array_equal(cuda.to_cpu(p.array), b - numpy.float32(0.1))
        assert link.p0.update_rule.t == 2

    def test_kernel_build_failure_falls_back(self, monkeypatch):
        def broken(*args, **kwargs):
            raise RuntimeError("no compiler")

        monkeypatch.setattr(_multi_tensor.cuda, "raw", broken)
        monkeypatch.setattr(_multi_tensor, "_broken", set())
        monkeypatch.setattr(_multi_tensor, "_kernels", {})
        new = _train(CASES["sgd"], [numpy.float64], False, monkeypatch)
        assert new[4] == 0 and ("sgd", "double") in _multi_tensor._broken
        monkeypatch.undo()
        old = _train(CASES["sgd"], [numpy.float64], True, monkeypatch)
        _assert_same_bits(new, old)


# -- CPU: which rules and arrays the module takes ------------------------------------------


class _FakeData:
    def __init__(self, array):
        self.ptr = array.ctypes.data
        self.device_id = 0


class _FakeGpuArray(numpy.ndarray):
    """A NumPy array with CuPy's ``data.ptr`` and ``data.device_id``."""

    @property
    def data(self):
        return _FakeData(self)


def _fake(array):
    return numpy.ascontiguousarray(array).view(_FakeGpuArray)


def _arrays(param, rule, kind):
    return _multi_tensor._arrays(param, rule, kind, _FakeGpuArray, {}, {})


def _param_with_state(rule_class, state_names=(), **hyper):
    param = chainer.Parameter(numpy.zeros((2, 3), numpy.float32))
    param._array = _fake(param.array)
    param._grad_var = None
    param.grad = _fake(numpy.ones((2, 3), numpy.float32))
    rule = rule_class(**hyper)
    rule._state = {name: _fake(numpy.zeros((2, 3), numpy.float32)) for name in state_names}
    param.update_rule = rule
    return param, rule


def test_kinds_of_rules():
    assert _multi_tensor._kind_of(optimizers.sgd.SGDRule()) is _multi_tensor._SGD
    assert _multi_tensor._kind_of(optimizers.momentum_sgd.MomentumSGDRule()) is _multi_tensor._MOMENTUM
    assert _multi_tensor._kind_of(optimizers.adam.AdamRule()) is _multi_tensor._ADAM
    assert _multi_tensor._kind_of(optimizers.adam.AdamRule(amsgrad=True)) is _multi_tensor._AMSGRAD
    assert _multi_tensor._kind_of(optimizers.rmsprop.RMSpropRule()) is None

    class MySGDRule(optimizers.sgd.SGDRule):
        pass

    assert _multi_tensor._kind_of(MySGDRule()) is None
    hooked = optimizers.sgd.SGDRule()
    hooked.add_hook(lambda rule, param: None, name="h")
    assert _multi_tensor._kind_of(hooked) is None
    patched = optimizers.sgd.SGDRule()
    patched.update_core = lambda param: None
    assert _multi_tensor._kind_of(patched) is None


def test_class_patch_is_noticed(monkeypatch):
    assert _multi_tensor._classes_unpatched()
    monkeypatch.setattr(optimizers.adam.AdamRule, "update_core_gpu", lambda self, param: None)
    assert not _multi_tensor._classes_unpatched()


def test_eligible_arrays():
    param, rule = _param_with_state(optimizers.momentum_sgd.MomentumSGDRule, ("v",))
    arrays, addresses = _arrays(param, rule, _multi_tensor._MOMENTUM)
    assert len(arrays) == 3 and arrays[0] is param._array and arrays[2] is rule.state["v"]
    assert addresses == (6, param.array.ctypes.data, param.grad.ctypes.data, rule.state["v"].ctypes.data)
    # The NumPy arrays themselves are not the GPU type.
    assert _multi_tensor._arrays(param, rule, _multi_tensor._MOMENTUM, type(None), {}, {}) is None


def test_checks_kept_while_the_arrays_are_the_same():
    param, rule = _param_with_state(optimizers.momentum_sgd.MomentumSGDRule, ("v",))
    first: dict = {}
    result = _multi_tensor._arrays(param, rule, _multi_tensor._MOMENTUM, _FakeGpuArray, first, {})
    again: dict = {}
    assert _multi_tensor._arrays(param, rule, _multi_tensor._MOMENTUM, _FakeGpuArray, again, first) is result
    # A new gradient is checked (and its address taken) even when the rest is known.
    param._grad_var = None
    param.grad = _fake(numpy.full((2, 3), 2, numpy.float32))
    arrays, addresses = _multi_tensor._arrays(param, rule, _multi_tensor._MOMENTUM, _FakeGpuArray, {}, again)
    assert arrays[1] is param.grad and addresses[2] == param.grad.ctypes.data
    param._grad_var = chainer.Variable(_fake(numpy.ones((3, 2), numpy.float32)).T)
    assert _multi_tensor._arrays(param, rule, _multi_tensor._MOMENTUM, _FakeGpuArray, {}, again) is None
    # A new state array is checked again.
    rule.state["v"] = _fake(numpy.zeros((2, 3), numpy.float64))
    param._grad_var = None
    param.grad = _fake(numpy.ones((2, 3), numpy.float32))
    assert _multi_tensor._arrays(param, rule, _multi_tensor._MOMENTUM, _FakeGpuArray, {}, again) is None


@pytest.mark.parametrize(
    "spoil",
    [
        "no_state",
        "state_missing",
        "state_dtype",
        "state_shape",
        "grad_none",
        "grad_dtype",
        "grad_transposed",
        "float16",
        "loss_scale",
        "unchecked_state",
        "patched_param",
    ],
)
def test_ineligible_arrays(spoil):
    param, rule = _param_with_state(optimizers.momentum_sgd.MomentumSGDRule, ("v",))
    if spoil == "no_state":
        rule._state = None
    elif spoil == "state_missing":
        rule._state = {}
    elif spoil == "state_dtype":
        rule._state["v"] = _fake(numpy.zeros((2, 3), numpy.float64))
    elif spoil == "state_shape":
        rule._state["v"] = _fake(numpy.zeros((3, 2), numpy.float32))
    elif spoil == "grad_none":
        param.grad = None
    elif spoil == "grad_dtype":  # the grad setter refuses it; a hook could still store one
        param._grad_var = chainer.Variable(_fake(numpy.ones((2, 3), numpy.float64)))
    elif spoil == "grad_transposed":
        param._grad_var = None
        param.grad = _fake(numpy.ones((3, 2), numpy.float32)).T
    elif spoil == "float16":
        param._array = _fake(numpy.zeros((2, 3), numpy.float16))
        param._grad_var = None
        param.grad = _fake(numpy.ones((2, 3), numpy.float16))
        rule._state["v"] = _fake(numpy.zeros((2, 3), numpy.float16))
    elif spoil == "loss_scale":
        param._loss_scale = 8.0
    elif spoil == "unchecked_state":
        rule._unchecked_state = True
    elif spoil == "patched_param":
        param.update = lambda: None
    assert _arrays(param, rule, _multi_tensor._MOMENTUM) is None


def test_adam_eps_underflow_is_left_to_the_per_parameter_error():
    param, rule = _param_with_state(optimizers.adam.AdamRule, ("m", "v"), eps=1e-50)
    assert _arrays(param, rule, _multi_tensor._ADAM) is None
    param, rule = _param_with_state(optimizers.adam.AdamRule, ("m", "v"), eps=1e-8)
    assert _arrays(param, rule, _multi_tensor._ADAM) is not None


def test_step_scalars_follow_the_rule():
    rule = optimizers.adam.AdamRule(alpha=0.01, adabound=True, final_lr=0.1, gamma=1e-3)
    rule.t = 3
    lr = 0.01 * numpy.sqrt(1 - 0.999**3) / (1 - 0.9**3)
    lower, upper = 0.1 * (1 - 1 / (3e-3 + 1)), 0.1 * (1 + 1 / 3e-3)
    got = _multi_tensor._ADAM.step_scalars(rule, numpy.dtype(numpy.float32))
    numpy.testing.assert_allclose(got, (lr, 0.1, 0.001, 1e-8, 0, 1.0, lower, upper, 1.0), rtol=1e-12)
    rule = optimizers.sgd.SGDRule(lr=0.25)
    assert _multi_tensor._SGD.step_scalars(rule, numpy.dtype(numpy.float32)) == (0.25,)
    rule.hyperparam.lr = object()  # not a number: the per-parameter path decides
    assert _multi_tensor._SGD.step_scalars(rule, numpy.dtype(numpy.float32)) is None


def test_cpu_optimizer_leaves_everything_to_the_per_parameter_path():
    link = _link([numpy.float32])
    opt = optimizers.Adam().setup(link)
    mtu = _multi_tensor.for_optimizer(opt)
    params = list(link.params())
    assert mtu.stage(params) == params
    assert mtu._staged == []
    assert all(p.update_rule.t == 0 for p in params)


def test_kernel_sources_use_the_rules_own_text():
    for kind in (_multi_tensor._SGD, _multi_tensor._MOMENTUM, _multi_tensor._ADAM, _multi_tensor._AMSGRAD):
        for ctype in ("float", "double"):
            src = kind.source(ctype, "k")
            assert f"typedef {ctype} T;" in src and kind.operation in src
            assert src.count("{") == src.count("}")
