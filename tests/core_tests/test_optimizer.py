import copy
import pickle
import warnings

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import optimizer, optimizer_hooks, optimizers
from chainer.optimizer import GradientMethod, Hyperparameter, UpdateRule
from chainer.testing import attr


class Inner(chainer.Link):
    def __init__(self, dtype, b):
        super().__init__()
        with self.init_scope():
            self.W = chainer.Parameter(numpy.array([[1.0, -2.0], [0.5, 3.0]], dtype))
            self.b = chainer.Parameter(numpy.array(b, dtype))


class TwoParamLink(chainer.Chain):
    """A chain with one child 'l' holding two parameters ('/l/W' and '/l/b')."""

    def __init__(self, dtype=numpy.float32, b=(0.25, -0.5)):
        super().__init__()
        with self.init_scope():
            self.l = Inner(dtype, b)

    @property
    def W(self):
        return self.l.W

    @property
    def b(self):
        return self.l.b


def quadratic_loss(link):
    return F.sum(link.W * link.W) + F.sum(link.b * link.b * link.b)


def set_grads(link, gW, gb):
    link.W.grad = numpy.asarray(gW, link.W.dtype)
    link.b.grad = numpy.asarray(gb, link.b.dtype)


class DictSerializer:
    """Writes values into a flat dict under '/'-joined paths."""

    def __init__(self, target=None, path=""):
        self.target = {} if target is None else target
        self.path = path

    def __getitem__(self, key):
        return DictSerializer(self.target, self.path + key.strip("/") + "/")

    def __call__(self, key, value):
        self.target[self.path + key] = copy.deepcopy(value)
        return value

    def save(self, obj):
        obj.serialize(self)


class DictDeserializer:
    """Reads values back from such a dict (copying into existing arrays)."""

    def __init__(self, source, path=""):
        self.source = source
        self.path = path

    def __getitem__(self, key):
        return DictDeserializer(self.source, self.path + key.strip("/") + "/")

    def __call__(self, key, value):
        stored = self.source[self.path + key]
        if value is None:
            return copy.deepcopy(stored)
        if isinstance(value, numpy.ndarray):
            numpy.copyto(value, stored)
            return value
        return type(value)(stored)

    def load(self, obj):
        obj.serialize(self)


# -- Hyperparameter -------------------------------------------------------------------


def test_hyperparameter_falls_back_on_its_parent():
    root = Hyperparameter()
    root.lr = 0.1
    root.momentum = 0.9
    child = Hyperparameter(root)
    assert child.parent is root and root.parent is None
    assert child.lr == 0.1
    child.lr = 0.5
    assert (root.lr, child.lr, child.momentum) == (0.1, 0.5, 0.9)
    root.momentum = 0.7
    assert child.momentum == 0.7
    assert child.get_dict() == {"lr": 0.5, "momentum": 0.7}
    assert root.get_dict() == {"lr": 0.1, "momentum": 0.7}
    assert repr(child) == "Hyperparameter(lr=0.5, momentum=0.7)"
    with pytest.raises(AttributeError, match=r"hyperparameter 'beta' is not defined"):
        _ = child.beta
    with pytest.raises(TypeError, match=r"Hyperparameter: parent must be a Hyperparameter or None, got dict"):
        Hyperparameter({"lr": 1})


def test_hyperparameter_pickles_and_copies():
    root = Hyperparameter()
    root.lr = 0.1
    child = Hyperparameter(root)
    child.eps = 1e-3
    for clone in (pickle.loads(pickle.dumps(child)), copy.deepcopy(child)):
        assert clone.get_dict() == {"lr": 0.1, "eps": 1e-3}
        assert clone.parent is not root


def test_hyperparameter_proxy():
    opt = optimizers.MomentumSGD(lr=0.2)
    assert isinstance(type(opt).lr, optimizer.HyperparameterProxy)
    opt.momentum = 0.3
    assert opt.hyperparam.momentum == 0.3


# -- UpdateRule -----------------------------------------------------------------------


class CountingRule(UpdateRule):
    """param -= lr * grad, with a state counting the updates per element."""

    def __init__(self, parent_hyperparam=None):
        super().__init__(parent_hyperparam)
        self.hyperparam.lr = 0.5

    def init_state(self, param):
        self.state["count"] = numpy.zeros_like(param.array)

    def update_core_cpu(self, param):
        self.state["count"] += 1
        param.array -= self.hyperparam.lr * param.grad


def make_param(value=(1.0, 2.0), grad=(0.5, -1.0), dtype=numpy.float32):
    p = chainer.Parameter(numpy.array(value, dtype))
    if grad is not None:
        p.grad = numpy.array(grad, dtype)
    return p


def test_update_rule_updates_and_counts():
    rule = CountingRule()
    p = make_param()
    assert rule.state is None and rule.t == 0
    rule.update(p)
    rule.update(p)
    numpy.testing.assert_allclose(p.array, [1.0 - 0.5, 2.0 + 1.0])
    assert rule.t == 2
    numpy.testing.assert_array_equal(rule.state["count"], [2, 2])


def test_disabled_rule_is_skipped():
    rule = CountingRule()
    rule.enabled = False
    p = make_param()
    rule.update(p)
    assert rule.t == 0 and numpy.array_equal(p.array, [1.0, 2.0])


def test_rule_runs_for_parameters_without_gradient_or_array():
    # As in Chainer 7: the update is counted and update_core runs; the formula decides.
    seen = []

    class Recording(UpdateRule):
        def update_core_cpu(self, param):
            seen.append(param.array is None)

    rule = Recording()
    rule.update(make_param(grad=None))
    rule.update(chainer.Parameter())
    assert rule.t == 2 and seen == [False, True]
    # The built-in rules skip them (an uninitialized parameter's gradient is not readable).
    sgd = optimizers.SGD(lr=1.0).create_update_rule()
    p = make_param(grad=None)
    sgd.update(p)
    sgd.update(chainer.Parameter())
    assert sgd.t == 2 and numpy.array_equal(p.array, [1.0, 2.0])


def test_update_rule_runs_on_zero_dimensional_parameters():
    for opt in (optimizers.AdaDelta(), optimizers.AdaGrad(), optimizers.RMSprop(), optimizers.MSVAG()):
        rule = opt.create_update_rule()
        p = chainer.Parameter(numpy.array(1.0, numpy.float32))
        p.grad = numpy.array(0.5, numpy.float32)
        rule.update(p)
        assert p.shape == () and float(p.array) < 1.0


def test_rule_hooks_order_and_timing():
    calls = []
    rule = CountingRule()

    def pre(r, param):
        calls.append(("pre", param.array.copy()))

    class Post:
        timing = "post"
        name = "post_hook"

        def __call__(self, r, param):
            calls.append(("post", param.array.copy()))

    rule.add_hook(pre)
    rule.add_hook(Post())
    p = make_param()
    rule.update(p)
    assert [c[0] for c in calls] == ["pre", "post"]
    numpy.testing.assert_array_equal(calls[0][1], [1.0, 2.0])
    numpy.testing.assert_array_equal(calls[1][1], p.array)
    rule.remove_hook("pre")
    rule.remove_hook("post_hook")
    with pytest.raises(KeyError, match=r'CountingRule.remove_hook: no hook named "pre"'):
        rule.remove_hook("pre")


def test_rule_hook_errors():
    rule = CountingRule()
    with pytest.raises(TypeError, match=r"CountingRule.add_hook: the hook must be callable, got int"):
        rule.add_hook(3)
    with pytest.raises(ValueError, match=r"timing must be one of \('auto', 'pre', 'post'\), got 'later'"):
        rule.add_hook(lambda r, p: None, name="x", timing="later")

    class Nameless:
        def __call__(self, r, p):
            pass

    with pytest.raises(ValueError, match=r"CountingRule.add_hook: the hook .* has no name"):
        rule.add_hook(Nameless())
    rule.add_hook(Nameless(), name="n")
    with pytest.raises(KeyError, match=r'a hook named "n" already exists'):
        rule.add_hook(Nameless(), name="n", timing="post")


def test_update_rule_hook_can_be_a_builtin_hook():
    rule = CountingRule()
    rule.add_hook(optimizer_hooks.WeightDecay(0.1))
    p = make_param()
    rule.update(p)
    # grad + 0.1 * param, then a step of 0.5.
    numpy.testing.assert_allclose(p.array, [1.0 - 0.5 * (0.5 + 0.1), 2.0 - 0.5 * (-1.0 + 0.2)], rtol=1e-6)


def test_base_rule_needs_an_implementation():
    p = make_param()
    with pytest.raises(NotImplementedError, match=r"UpdateRule must implement update_core_cpu"):
        UpdateRule().update(p)
    with pytest.raises(NotImplementedError, match=r"ChainerX is not supported"):
        UpdateRule().update_core_chainerx(p)


def test_rule_divides_by_the_loss_scale_of_backward():
    rule = CountingRule()
    p = chainer.Parameter(numpy.array([1.0, 2.0], numpy.float32))
    (F.sum(p * p)).backward(loss_scale=8.0)
    numpy.testing.assert_array_equal(p.grad, [16.0, 32.0])
    assert p._loss_scale == 8.0
    rule.update(p)
    numpy.testing.assert_allclose(p.array, [1.0 - 0.5 * 2.0, 2.0 - 0.5 * 4.0])
    assert p._loss_scale is None


def test_float16_gradient_with_a_scale_beyond_float16_range():
    rule = optimizers.sgd.SGDRule(lr=1.0)
    p = chainer.Parameter(numpy.zeros(1, numpy.float16))
    p.grad = numpy.array([24576.0], numpy.float16)
    p._loss_scale = 2.0**17  # 131072 overflows float16
    rule.update(p)
    assert p.array[0] == numpy.float16(-24576.0 / 2**17)


def test_fp32_update_keeps_a_float32_master_copy():
    # Steps far below float16's resolution at 1.0 (about 1e-3) accumulate in the master.
    rule = optimizers.sgd.SGDRule(lr=1e-4)
    rule.use_fp32_update()
    p = chainer.Parameter(numpy.ones(3, numpy.float16))
    for _ in range(20):
        p.grad = numpy.ones(3, numpy.float16)
        rule.update(p)
    master = rule._fp32_param.array
    assert master.dtype == numpy.float32 and p.dtype == numpy.float16
    numpy.testing.assert_allclose(master, 1 - 20 * 1e-4, rtol=1e-6)
    numpy.testing.assert_array_equal(p.array, master.astype(numpy.float16))
    # Without the master copy each step rounds back to 1.0.
    plain = optimizers.sgd.SGDRule(lr=1e-4)
    q = chainer.Parameter(numpy.ones(3, numpy.float16))
    for _ in range(20):
        q.grad = numpy.ones(3, numpy.float16)
        plain.update(q)
    assert numpy.all(q.array == 1.0)


def test_fp32_update_unscales_in_float32():
    rule = optimizers.sgd.SGDRule(lr=1.0)
    rule.use_fp32_update()
    p = chainer.Parameter(numpy.zeros(1, numpy.float16))
    p.grad = numpy.array([2.0**-10], numpy.float16)
    p._loss_scale = 2.0**20  # the true gradient, 2**-30, is below float16's range
    rule.update(p)
    assert rule._fp32_param.array[0] == numpy.float32(-(2.0**-30))


def test_rule_serialization_round_trip():
    rule = CountingRule()
    p = make_param()
    rule.update(p)
    saved = {}
    rule.serialize(DictSerializer(saved))
    assert set(saved) == {"t", "count"}
    fresh = CountingRule()
    fresh.serialize(DictDeserializer(saved))
    assert fresh.t == 1
    numpy.testing.assert_array_equal(fresh.state["count"], [1, 1])
    # Loading into an existing state copies in place.
    count = fresh.state["count"]
    rule.update(p)
    fresh.serialize(DictDeserializer({"t": 5, "count": numpy.array([7.0, 8.0], numpy.float32)}))
    assert fresh.state["count"] is count and fresh.t == 5
    numpy.testing.assert_array_equal(count, [7, 8])


def test_rule_loads_an_empty_state_lazily():
    fresh = CountingRule()
    fresh.serialize(DictDeserializer({"t": 0, "count": None}))
    assert fresh.state is None
    with pytest.raises(KeyError):
        CountingRule().serialize(DictDeserializer({"t": 3}))
    never_updated = CountingRule()
    never_updated.serialize(DictDeserializer({"t": 0}))
    assert never_updated.state is None
    disabled = CountingRule()
    disabled.enabled = False
    disabled.serialize(DictDeserializer({"t": 3}))
    assert disabled.t == 3 and disabled.state is None


def _optimizer_state(opt):
    rules = [(p.update_rule.t, p.update_rule.state) for p in opt.target.params()]
    return opt.t, opt.epoch, [(t, None if s is None else {k: v.copy() for k, v in s.items()}) for t, s in rules]


@pytest.mark.parametrize("fmt", ["npz", "hdf5"])
@pytest.mark.parametrize("other", [optimizers.SGD, optimizers.MomentumSGD])
def test_failed_optimizer_load_leaves_a_fresh_optimizer_unchanged(tmp_path, fmt, other):
    # A file saved by an optimizer whose rules keep other state (SGD keeps none,
    # MomentumSGD keeps v) than Adam's m and v: the rules updated (t > 0), so the missing
    # state is an error. The validation pass of load_npz/load_hdf5 hands out no values; it
    # must still see the saved t and fail before the loading pass changes anything.
    if fmt == "hdf5":
        pytest.importorskip("h5py")
    save, load = {
        "npz": (chainer.serializers.save_npz, chainer.serializers.load_npz),
        "hdf5": (chainer.serializers.save_hdf5, chainer.serializers.load_hdf5),
    }[fmt]
    saved = other().setup(TwoParamLink())
    for _ in range(3):
        saved.update(quadratic_loss, saved.target)
    save(tmp_path / "opt", saved)

    fresh = optimizers.Adam().setup(TwoParamLink())
    fresh.epoch = 2
    before = _optimizer_state(fresh)
    with pytest.raises(KeyError, match="l/W/m"):
        load(tmp_path / "opt", fresh)
    after = _optimizer_state(fresh)
    assert after[:2] == before[:2] == (0, 2)
    assert [t for t, _ in after[2]] == [0, 0]
    assert all(state is None for _, state in after[2])

    # A rule that never updated (t == 0) saved no state: that loads, leaving the state to
    # the first update.
    unused = other().setup(TwoParamLink())
    save(tmp_path / "unused", unused)
    load(tmp_path / "unused", fresh)
    assert fresh.t == 0 and all(p.update_rule.state is None for p in fresh.target.params())


class Wide(chainer.Chain):
    """A chain with one child 'l' holding W of the given shape (and b of its rows)."""

    def __init__(self, shape):
        super().__init__()
        with self.init_scope():
            self.l = chainer.Link()
            with self.l.init_scope():
                self.l.W = chainer.Parameter(
                    numpy.linspace(-1, 1, numpy.prod(shape), dtype=numpy.float32).reshape(shape)
                )
                self.l.b = chainer.Parameter(numpy.zeros(shape[0], numpy.float32))


def wide_loss(link):
    return F.sum(link.l.W * link.l.W) + F.sum(link.l.b)


@pytest.mark.parametrize("fmt", ["npz", "hdf5"])
@pytest.mark.parametrize("name", ["Adam", "MomentumSGD", "AdaGrad"])
def test_state_of_another_shape_is_refused_and_changes_nothing(tmp_path, fmt, name):
    # The file's W is (8, 3) where the model's is (3, 8): the same size, so a compiled
    # kernel walking flat buffers would update with it as if it were this W's state.
    if fmt == "hdf5":
        pytest.importorskip("h5py")
    save, load = {
        "npz": (chainer.serializers.save_npz, chainer.serializers.load_npz),
        "hdf5": (chainer.serializers.save_hdf5, chainer.serializers.load_hdf5),
    }[fmt]
    other = getattr(optimizers, name)().setup(Wide((8, 3)))
    for _ in range(2):
        other.update(wide_loss, other.target)
    save(tmp_path / "opt", other)

    fresh = getattr(optimizers, name)().setup(Wide((3, 8)))
    fresh.epoch = 4
    before = _optimizer_state(fresh)
    with pytest.raises(ValueError) as info:
        load(tmp_path / "opt", fresh)
    message = str(info.value)
    first_state_key = sorted(other.target.l.W.update_rule.state)[0]
    assert f"the optimizer state {first_state_key!r} of the parameter 'l/W' has shape (8, 3)" in message
    assert "needs (3, 8) for the parameter's shape (3, 8)" in message
    assert message.startswith(f"load_{fmt}:")
    after = _optimizer_state(fresh)
    assert after[:2] == before[:2] == (0, 4)
    assert [t for t, _ in after[2]] == [0, 0]
    assert all(state is None for _, state in after[2])

    # The same file loads into the model it belongs to.
    right = getattr(optimizers, name)().setup(Wide((8, 3)))
    load(tmp_path / "opt", right)
    assert right.t == 2


def test_rule_loaded_alone_checks_its_state_at_the_next_update(cpu_code):
    # A rule loaded on its own does not know its parameter: the state is checked against
    # the parameter at the first update, before anything is changed.
    shape = (3, 8)
    wrong = {"t": 1, "m": numpy.zeros((8, 3), numpy.float32), "v": numpy.ones((8, 3), numpy.float32)}
    rule = optimizers.Adam().create_update_rule()
    rule.serialize(DictDeserializer(wrong))
    param = chainer.Parameter(numpy.ones(shape, numpy.float32))
    param.grad = numpy.full(shape, 0.5, numpy.float32)
    with pytest.raises(
        ValueError,
        match=r"AdamRule.update: the state 'm' of the parameter .* has shape \(8, 3\), "
        r"but for a parameter of shape \(3, 8\) it must be \(3, 8\)",
    ):
        rule.update(param)
    numpy.testing.assert_array_equal(param.array, numpy.ones(shape))
    numpy.testing.assert_array_equal(rule.state["v"], numpy.ones((8, 3)))

    # A state of the right shape loads and updates as usual, and is checked only once.
    right = {"t": 1, "m": numpy.zeros(shape, numpy.float32), "v": numpy.ones(shape, numpy.float32)}
    rule = optimizers.Adam().create_update_rule()
    rule.serialize(DictDeserializer(right))
    rule.update(param)
    assert rule._unchecked_state is False and rule.t == 2
    assert (param.array < 1).all()


@pytest.mark.parametrize("name, key", [("Adam", "v"), ("MomentumSGD", "v")])
def test_compiled_kernel_is_not_given_a_state_of_another_shape(compiled_cpu_kernels, name, key):
    # The compiled kernels check element counts only; their caller checks shapes.
    link = Wide((3, 8))
    opt = getattr(optimizers, name)().setup(link)
    opt.update(wide_loss, link)
    assert compiled_cpu_kernels[{"Adam": "adam", "MomentumSGD": "momentum_sgd"}[name]] > 0
    rule = link.l.W.update_rule
    rule.state[key] = rule.state[key].reshape(8, 3).copy()
    before = link.l.W.array.copy()
    with pytest.raises(
        ValueError, match=rf"{name}Rule.update: the parameter 'W' has shape \(3, 8\), but {key} \(8, 3\)"
    ):
        opt.update(wide_loss, link)
    numpy.testing.assert_array_equal(link.l.W.array, before)


# -- Optimizer ------------------------------------------------------------------------


def test_setup_returns_self_and_gives_each_param_a_rule():
    link = TwoParamLink()
    opt = optimizers.Adam()
    assert opt.setup(link) is opt
    assert opt.target is link and opt.t == 0 and opt.epoch == 0
    assert isinstance(link.W.update_rule, optimizers.adam.AdamRule)
    assert link.W.update_rule is not link.b.update_rule
    assert link.W.update_rule.hyperparam.parent is opt.hyperparam


def test_setup_refuses_non_links():
    with pytest.raises(TypeError, match=r"SGD.setup: optimization target must be a link \(chainer.Link\), got int"):
        optimizers.SGD().setup(3)


def test_setup_keeps_frozen_parameters_frozen():
    link = TwoParamLink()
    optimizers.SGD().setup(link)
    link.b.update_rule.enabled = False
    optimizers.Adam().setup(link)
    assert not link.b.update_rule.enabled and link.W.update_rule.enabled


def test_update_with_lossfun_clears_and_recomputes_grads():
    link = TwoParamLink(numpy.float64)
    opt = optimizers.SGD(lr=0.1).setup(link)
    set_grads(link, [[100.0, 100.0], [100.0, 100.0]], [100.0, 100.0])  # stale: must be cleared
    W0, b0 = link.W.array.copy(), link.b.array.copy()
    opt.update(quadratic_loss, link)
    numpy.testing.assert_allclose(link.W.array, W0 - 0.1 * 2 * W0)
    numpy.testing.assert_allclose(link.b.array, b0 - 0.1 * 3 * b0**2)
    assert opt.t == 1 and link.W.update_rule.t == 1


def test_update_without_lossfun_uses_stored_grads():
    link = TwoParamLink(numpy.float64)
    opt = optimizers.SGD(lr=1.0).setup(link)
    set_grads(link, [[1.0, 1.0], [1.0, 1.0]], [2.0, 2.0])
    opt.update()
    numpy.testing.assert_allclose(link.b.array, [0.25 - 2, -0.5 - 2])


def test_parameters_without_grad_get_zero_grads_and_frozen_ones_stay():
    link = TwoParamLink(numpy.float64)
    opt = optimizers.MomentumSGD(lr=1.0, momentum=0.5).setup(link)
    set_grads(link, [[1.0, 1.0], [1.0, 1.0]], [1.0, 1.0])
    opt.update()
    link.b.cleargrad()
    link.W.update_rule.enabled = False
    W = link.W.array.copy()
    link.W.grad = numpy.ones((2, 2))
    opt.update()
    numpy.testing.assert_array_equal(link.W.array, W)
    # b had no gradient: a zero gradient, so only the momentum moves it.
    numpy.testing.assert_allclose(link.b.array, [0.25 - 1 - 0.5, -0.5 - 1 - 0.5])
    numpy.testing.assert_array_equal(link.b.grad, [0.0, 0.0])


def test_shared_gradient_arrays_are_separated_before_in_place_hooks():
    link = TwoParamLink(numpy.float64, b=[[3.0, 4.0], [5.0, 6.0]])
    opt = optimizers.SGD(lr=1.0).setup(link)
    opt.add_hook(optimizer_hooks.WeightDecay(1.0))
    shared = numpy.ones((2, 2))
    link.W.grad = shared
    link.b._grad_var = link.W._grad_var  # one gradient object for both, as x + y gives
    W0, b0 = link.W.array.copy(), link.b.array.copy()
    opt.update()
    numpy.testing.assert_allclose(link.W.array, W0 - (1 + W0))
    numpy.testing.assert_allclose(link.b.array, b0 - (1 + b0))


def test_sum_of_parameters_with_weight_decay():
    # Backprop of W + b hands the same gradient array to both parameters.
    link = TwoParamLink(numpy.float64, b=[[3.0, 4.0], [5.0, 6.0]])
    opt = optimizers.SGD(lr=0.5).setup(link)
    opt.add_hook(optimizer_hooks.WeightDecay(0.1))
    W0, b0 = link.W.array.copy(), link.b.array.copy()
    opt.update(lambda: F.sum(link.W + link.b))
    numpy.testing.assert_allclose(link.W.array, W0 - 0.5 * (1 + 0.1 * W0))
    numpy.testing.assert_allclose(link.b.array, b0 - 0.5 * (1 + 0.1 * b0))


def test_optimizer_hooks_pre_and_post():
    link = TwoParamLink(numpy.float64)
    opt = optimizers.SGD(lr=1.0).setup(link)
    seen = []

    def pre(o):
        seen.append(("pre", o.t, link.b.array.copy()))

    def post(o):
        seen.append(("post", o.t, link.b.array.copy()))

    opt.add_hook(pre)
    opt.add_hook(post, timing="post")
    set_grads(link, numpy.zeros((2, 2)), [1.0, 1.0])
    opt.update()
    assert [(s[0], s[1]) for s in seen] == [("pre", 0), ("post", 1)]
    numpy.testing.assert_array_equal(seen[0][2], [0.25, -0.5])
    numpy.testing.assert_array_equal(seen[1][2], [-0.75, -1.5])
    opt.remove_hook("pre")
    with pytest.raises(KeyError, match=r'SGD.remove_hook: no hook named "pre"'):
        opt.remove_hook("pre")
    with pytest.raises(KeyError, match=r'SGD.add_hook: a hook named "post" already exists'):
        opt.add_hook(post)


def test_per_param_optimizer_hook_gets_rule_and_param():
    link = TwoParamLink()
    opt = optimizers.SGD().setup(link)
    got = []

    class Hook:
        name = "h"
        call_for_each_param = True

        def __call__(self, rule, param):
            got.append((rule, param))

    opt.add_hook(Hook())
    link.b.update_rule.enabled = False
    set_grads(link, numpy.zeros((2, 2)), numpy.zeros(2))
    opt.update()
    assert got == [(link.W.update_rule, link.W)]


def test_add_hook_needs_setup():
    with pytest.raises(RuntimeError, match=r"SGD.add_hook: call setup\(link\) before adding hooks"):
        optimizers.SGD().add_hook(lambda o: None)
    with pytest.raises(RuntimeError, match=r"SGD.update: call setup\(link\) first"):
        optimizers.SGD().update()
    opt = optimizers.SGD().setup(TwoParamLink())
    with pytest.raises(ValueError, match=r"SGD.call_hooks: timing must be 'pre' or 'post', got 'x'"):
        opt.call_hooks("x")


def test_new_epoch():
    opt = optimizers.SGD().setup(TwoParamLink())
    opt.new_epoch()
    assert opt.epoch == 1
    with pytest.raises(RuntimeError, match=r"new_epoch\(auto=True\) is for updaters"):
        opt.new_epoch(auto=True)
    opt.use_auto_new_epoch = True
    opt.new_epoch(auto=True)
    assert opt.epoch == 2
    with pytest.raises(RuntimeError, match=r"the updater already calls new_epoch\(auto=True\)"):
        opt.new_epoch()


def test_serialize_keys_and_round_trip():
    link = TwoParamLink()
    opt = optimizers.Adam().setup(link)
    for _ in range(2):
        opt.update(quadratic_loss, link)
    opt.new_epoch()
    saved = {}
    opt.serialize(DictSerializer(saved))
    assert set(saved) == {"t", "epoch", "l/W/t", "l/W/m", "l/W/v", "l/b/t", "l/b/m", "l/b/v"}
    assert saved["t"] == 2 and saved["epoch"] == 1

    link2 = TwoParamLink()
    opt2 = optimizers.Adam().setup(link2)
    opt2.serialize(DictDeserializer(saved))
    assert (opt2.t, opt2.epoch, link2.W.update_rule.t) == (2, 1, 2)
    numpy.testing.assert_array_equal(link2.W.update_rule.state["m"], link.W.update_rule.state["m"])


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [
        ("Adam", {"alpha": 0.05}),
        ("MomentumSGD", {"lr": 0.1}),
        ("AMSBound", {"alpha": 0.05}),
        ("RMSpropGraves", {"lr": 0.01}),
        ("SMORMS3", {"lr": 0.01}),
        ("MSVAG", {"lr": 0.05}),
        ("AdaDelta", {}),
    ],
)
def test_resuming_from_saved_state_is_bit_identical(name, kwargs):
    def make():
        return getattr(optimizers, name)(**kwargs)

    def lossfun(link, step):
        return quadratic_loss(link) * (1.0 + 0.1 * step)

    # Uninterrupted: six updates.
    link = TwoParamLink()
    opt = make().setup(link)
    for step in range(6):
        opt.update(lossfun, link, step)

    # Interrupted after three: save the parameters and the optimizer, rebuild, resume.
    first = TwoParamLink()
    opt1 = make().setup(first)
    for step in range(3):
        opt1.update(lossfun, first, step)
    saved = {}
    opt1.serialize(DictSerializer(saved))
    arrays = {k: v.array.copy() for k, v in first.namedparams()}
    resumed = TwoParamLink()
    for k, v in resumed.namedparams():
        v.array[...] = arrays[k]
    opt2 = make().setup(resumed)
    opt2.serialize(DictDeserializer(saved))
    for step in range(3, 6):
        opt2.update(lossfun, resumed, step)

    assert opt2.t == opt.t == 6
    for (_, a), (_, b) in zip(link.namedparams(), resumed.namedparams()):
        assert numpy.array_equal(a.array, b.array)


# -- loss scaling ---------------------------------------------------------------------


def test_static_loss_scaling_gives_the_unscaled_update():
    def run(scale):
        link = TwoParamLink(numpy.float16)
        opt = optimizers.SGD(lr=0.1).setup(link)
        if scale is not None:
            opt.set_loss_scale(scale)
        opt.add_hook(optimizer_hooks.WeightDecay(0.01))
        opt.update(quadratic_loss, link)
        return link

    plain, scaled = run(None), run(1024.0)
    numpy.testing.assert_array_equal(plain.W.array, scaled.W.array)
    numpy.testing.assert_array_equal(plain.b.array, scaled.b.array)


def test_loss_scale_is_passed_to_backward():
    link = TwoParamLink(numpy.float64)
    opt = optimizers.SGD(lr=0.0).setup(link)
    opt.set_loss_scale(16.0)
    opt.add_hook(lambda o: seen.append(link.W.grad.copy()), name="peek")
    seen = []
    opt.update(quadratic_loss, link)
    numpy.testing.assert_allclose(seen[0], 16.0 * 2 * link.W.array)


def _set_grads_finite(link, finite):
    g = numpy.ones((2, 2), numpy.float32)
    if not finite:
        g[0, 1] = numpy.inf
    link.W.grad = g
    link.b.grad = numpy.ones(2, numpy.float32)


# Chainer 7.8.1's warning, one per parameter whose gradient is not finite.
_NON_FINITE = r"Non finite number found in param.grad of /l/W \(iteration: 3, loss_scale: "


def test_dynamic_loss_scaling():
    link = TwoParamLink()
    opt = optimizers.SGD(lr=0.1).setup(link)
    opt.loss_scaling(interval=3)
    assert opt._loss_scale == 1.0
    # Warm-up: the scale doubles at each good update until the first overflow.
    for expected in (2.0, 4.0, 8.0):
        _set_grads_finite(link, True)
        opt.update()
        assert opt._loss_scale == expected
    assert opt.t == 3
    # Overflow: the parameters stay, the scale halves; t still counts the update (as in
    # Chainer 7.8.1), the update rule's own t does not.
    W = link.W.array.copy()
    _set_grads_finite(link, False)
    with pytest.warns(UserWarning, match=_NON_FINITE + "8.0"):
        opt.update()
    assert not opt.is_safe_to_update()
    assert opt.t == 4 and link.W.update_rule.t == 3
    numpy.testing.assert_array_equal(link.W.array, W)
    assert opt._loss_scale == 4.0
    # From then on each good update multiplies the scale by 2 ** (1 / interval): it doubles
    # over `interval` updates.
    for k in range(1, 5):
        _set_grads_finite(link, True)
        opt.update()
        assert opt.is_safe_to_update()
        numpy.testing.assert_allclose(opt._loss_scale, 4.0 * 2.0 ** (k / 3), rtol=1e-12)
    assert opt.t == 8 and link.W.update_rule.t == 7


def test_skipped_update_still_runs_the_hooks():
    link = TwoParamLink()
    opt = optimizers.SGD(lr=0.1).setup(link)
    opt.loss_scaling()
    seen = []
    for timing in ("pre", "post"):

        def hook(optimizer, timing=timing):
            seen.append((timing, optimizer.t))

        opt.add_hook(hook, name="hook_" + timing, timing=timing)
    for finite in (True, False):
        _set_grads_finite(link, finite)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            opt.update()
    assert seen == [("pre", 0), ("post", 1), ("pre", 1), ("post", 2)]
    assert link.W.update_rule.t == 1


def test_dynamic_loss_scale_bounds():
    link = TwoParamLink()
    opt = optimizers.SGD().setup(link)
    opt.loss_scaling()
    for _ in range(20):
        _set_grads_finite(link, True)
        opt.update()
    assert opt._loss_scale == 65504.0  # float16's largest value
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for _ in range(20):
            _set_grads_finite(link, False)
            opt.update()
    assert opt._loss_scale == 1.0


def test_dynamic_loss_scaling_end_to_end_in_float16():
    link = TwoParamLink(numpy.float16)
    opt = optimizers.SGD(lr=1e-6).setup(link)
    opt.loss_scaling(interval=2)

    def lossfun():
        # Gradients of 1e4 * scale overflow float16 once the scale reaches 8.
        return F.sum(link.W * 1e4) + F.sum(link.b)

    W0 = link.W.array.copy()
    for _ in range(3):
        opt.update(lossfun)
    assert opt._loss_scale == 8.0 and opt.t == 3
    with numpy.errstate(over="ignore"), pytest.warns(UserWarning, match=_NON_FINITE):
        opt.update(lossfun)
    assert not opt.is_safe_to_update() and opt.t == 4 and opt._loss_scale == 4.0
    # Three good updates, each with the true gradient 1e4.
    numpy.testing.assert_allclose(link.W.array, W0 - 3 * 1e-6 * 1e4, rtol=2e-3)


def test_check_nan_in_grads_only_with_dynamic_scaling():
    link = TwoParamLink()
    opt = optimizers.SGD().setup(link)
    _set_grads_finite(link, False)
    opt.check_nan_in_grads()
    assert opt.is_safe_to_update()
    opt.loss_scaling()
    opt.check_nan_in_grads()
    assert not opt.is_safe_to_update()


def test_loss_scaling_arguments():
    opt = optimizers.SGD().setup(TwoParamLink())
    with pytest.raises(ValueError, match=r"SGD.loss_scaling: interval must be an integer >= 1, got 0"):
        opt.loss_scaling(interval=0)
    with pytest.raises(ValueError, match=r"SGD.loss_scaling: scale must be a positive number, got -2"):
        opt.loss_scaling(scale=-2)
    with pytest.raises(TypeError, match=r"SGD.loss_scaling: scale must be a number or None, got 'big'"):
        opt.set_loss_scale("big")
    opt.set_loss_scale(8)
    assert opt._loss_scale == 8.0 and not opt._loss_scaling_is_dynamic
    opt.set_loss_scale(None)
    assert opt._loss_scale is None


# -- GradientMethod options -----------------------------------------------------------


def test_use_fp32_update_through_the_optimizer():
    link = TwoParamLink(numpy.float16)
    opt = optimizers.SGD(lr=1e-4).setup(link)
    opt.use_fp32_update()
    assert link.W.update_rule._use_fp32_update
    for _ in range(10):
        set_grads(link, numpy.ones((2, 2)), numpy.ones(2))
        opt.update()
    master = link.W.update_rule._fp32_param.array
    numpy.testing.assert_allclose(master, numpy.array([[1.0, -2.0], [0.5, 3.0]]) - 1e-3, rtol=1e-6)
    # Rules created by a later setup get the flag too.
    link2 = TwoParamLink(numpy.float16)
    opt.setup(link2)
    assert link2.b.update_rule._use_fp32_update


def test_use_cleargrads_is_deprecated():
    link = TwoParamLink(numpy.float64)
    opt = optimizers.SGD(lr=0.1).setup(link)
    with pytest.warns(DeprecationWarning, match=r"GradientMethod.use_cleargrads is deprecated"):
        opt.use_cleargrads(False)
    opt.update(quadratic_loss, link)  # zerograds, then backprop
    assert link.W.grad is not None


def test_reallocate_cleared_grads():
    link = TwoParamLink()
    opt = optimizers.SGD().setup(link)
    link.W.grad = numpy.ones((2, 2), numpy.float32)
    opt.reallocate_cleared_grads()
    assert numpy.array_equal(link.b.grad, numpy.zeros(2, numpy.float32))
    assert numpy.array_equal(link.W.grad, numpy.ones((2, 2), numpy.float32))


def test_custom_gradient_method():
    class HalvingRule(UpdateRule):
        def update_core_cpu(self, param):
            param.array *= 0.5

    class Halving(GradientMethod):
        def create_update_rule(self):
            return HalvingRule(self.hyperparam)

    link = TwoParamLink()
    opt = Halving().setup(link)
    opt.update()
    numpy.testing.assert_array_equal(link.b.array, [0.125, -0.25])
    with pytest.raises(NotImplementedError, match=r"GradientMethod must implement create_update_rule"):
        GradientMethod().setup(link)
    with pytest.raises(NotImplementedError, match=r"Optimizer must implement update"):
        optimizer.Optimizer().update()


def test_moved_hooks_are_deprecated_subclasses_that_warn_when_made():
    # Chainer 7.8.1: looking the old name up is silent, instantiating it warns.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cls = optimizer.WeightDecay
        assert hasattr(optimizer, "GradientClipping")
    assert issubclass(cls, optimizer_hooks.WeightDecay) and cls is not optimizer_hooks.WeightDecay
    assert cls.__module__ == "chainer.optimizer" and cls.__name__ == "WeightDecay"
    assert optimizer.WeightDecay is cls
    with pytest.warns(DeprecationWarning, match=r"chainer.optimizer.WeightDecay is deprecated"):
        hook = cls(0.25)
    assert isinstance(hook, optimizer_hooks.WeightDecay) and hook.rate == 0.25
    with pytest.raises(AttributeError):
        _ = optimizer.NoSuchThing


def test_top_level_names():
    assert chainer.Optimizer is optimizer.Optimizer
    assert chainer.GradientMethod is GradientMethod
    assert chainer.UpdateRule is UpdateRule
    assert chainer.optimizers is optimizers and chainer.optimizer_hooks is optimizer_hooks


# -- with real link hierarchies -------------------------------------------------------


class Affine(chainer.Link):
    def __init__(self, n_in, n_out):
        super().__init__()
        with self.init_scope():
            self.W = chainer.Parameter(numpy.arange(n_in * n_out, dtype=numpy.float32).reshape(n_out, n_in) / 10)
            self.b = chainer.Parameter(numpy.zeros(n_out, numpy.float32))

    def forward(self, x):
        return F.matmul(x, self.W, transb=True) + self.b


class MLP(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = Affine(3, 4)
            self.l2 = Affine(4, 2)

    def forward(self, x):
        return self.l2(F.tanh(self.l1(x)))


class Wrapper(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.predictor = MLP()

    def forward(self, x):
        return F.sum(self.predictor(x) ** 2)


def test_serialized_keys_follow_the_link_hierarchy():
    model = Wrapper()
    opt = optimizers.Adam().setup(model)
    x = numpy.ones((2, 3), numpy.float32)
    opt.update(model, x)
    saved = {}
    opt.serialize(DictSerializer(saved))
    expected = {"t", "epoch"}
    for layer in ("l1", "l2"):
        for p in ("W", "b"):
            expected |= {f"predictor/{layer}/{p}/{k}" for k in ("t", "m", "v")}
    assert set(saved) == expected


def test_disable_update_freezes_a_sub_link():
    model = Wrapper()
    opt = optimizers.SGD(lr=0.1).setup(model)
    model.predictor.l1.disable_update()
    assert not model.predictor.l1.update_enabled and model.predictor.l2.update_enabled
    W1, W2 = model.predictor.l1.W.array.copy(), model.predictor.l2.W.array.copy()
    opt.update(model, numpy.ones((2, 3), numpy.float32))
    numpy.testing.assert_array_equal(model.predictor.l1.W.array, W1)
    assert not numpy.array_equal(model.predictor.l2.W.array, W2)
    model.predictor.l1.enable_update()
    opt.update(model, numpy.ones((2, 3), numpy.float32))
    assert not numpy.array_equal(model.predictor.l1.W.array, W1)


class LazyAffine(chainer.Link):
    def __init__(self, n_out):
        super().__init__()
        with self.init_scope():
            self.W = chainer.Parameter(chainer.initializers.One())

    def forward(self, x):
        if self.W.array is None:
            self.W.initialize((2, x.shape[1]))
        return F.matmul(x, self.W, transb=True)


def test_lazily_initialized_parameters():
    model = LazyAffine(2)
    opt = optimizers.MomentumSGD(lr=0.1, momentum=0.5).setup(model)
    assert model.W.update_rule is not None and model.W.update_rule.state is None
    opt.reallocate_cleared_grads()  # skips the uninitialized parameter
    x = numpy.array([[1.0, 2.0, 3.0]], numpy.float32)
    opt.update(lambda: F.sum(model(x)))
    numpy.testing.assert_allclose(model.W.array, 1 - 0.1 * numpy.broadcast_to(x, (2, 3)))
    assert model.W.update_rule.state["v"].shape == (2, 3)


@attr.gpu
@pytest.mark.parametrize("name", optimizers.__all__)
@pytest.mark.parametrize("fp32_update", [False, True])
def test_gpu_matches_cpu(name, fp32_update):
    import cupy

    def run(device):
        model = Wrapper()
        model.to_device(device)
        opt = getattr(optimizers, name)().setup(model)
        opt.add_hook(optimizer_hooks.WeightDecay(1e-3))
        opt.add_hook(optimizer_hooks.GradientClipping(1.0))
        if fp32_update:
            opt.use_fp32_update()
        x = model.device.send(numpy.linspace(-1, 1, 6, dtype=numpy.float32).reshape(2, 3))
        for _ in range(3):
            opt.update(model, x)
        return {k: chainer.backends.cuda.to_cpu(p.array) for k, p in model.namedparams()}

    cpu, gpu = run("@numpy"), run("@cupy:0")
    assert cupy.cuda.runtime.getDeviceCount() >= 1
    for k in cpu:
        numpy.testing.assert_allclose(gpu[k], cpu[k], rtol=1e-5, atol=1e-6)


def test_rule_hooks_accept_any_name_object_and_default_to_pre():
    calls = []

    class Hook:
        name = ("not", "a", "str")  # Chainer 7 keyed hooks by whatever name they had
        timing = object()  # not 'pre' or 'post': the hook runs before the update

        def __call__(self, rule, param):
            calls.append(param.array.copy())

    rule = CountingRule()
    rule.add_hook(Hook())
    p = make_param()
    rule.update(p)
    numpy.testing.assert_array_equal(calls[0], [1.0, 2.0])  # seen before the update
    rule.remove_hook(("not", "a", "str"))
    with pytest.raises(ValueError, match="has no name"):
        rule.add_hook(lambda r, p: None, name=[])


def test_loading_a_state_runs_init_state_on_the_rule_itself():
    # An init_state that refers to the rule object (not to self) sees a dict to fill.
    rule = UpdateRule()

    def init_state(param):
        rule.state["a"] = 0
        rule.state["b"] = numpy.zeros(3, numpy.float32)

    rule.init_state = init_state
    saved = {"t": 5, "a": 7, "b": numpy.arange(3.0)}

    class Source(chainer.serializer.Deserializer):
        def __getitem__(self, key):
            raise NotImplementedError

        def __call__(self, key, value):
            return saved[key] if value is None else type(value)(saved[key])

    rule.serialize(Source())
    assert rule.t == 5 and rule.state["a"] == 7
    numpy.testing.assert_array_equal(rule.state["b"], numpy.arange(3.0))


def test_base_optimizer_calls_per_parameter_hooks():
    link = chainer.Link()
    with link.init_scope():
        link.p = chainer.Parameter(numpy.zeros(2, numpy.float32))
    seen = []

    class PerParam:
        call_for_each_param = True
        timing = "pre"

        def __call__(self, rule, param):
            seen.append((rule, param))

    opt = optimizer.Optimizer()
    opt.setup(link)
    opt.add_hook(PerParam(), "per_param")
    opt.call_hooks()
    assert seen == [(None, link.p)]


def test_moved_hook_names_warn_with_the_deprecation_message():
    assert optimizer.make_deprecation_message("Lasso") == (
        "chainer.optimizer.Lasso is deprecated from v4. Use chainer.optimizer_hooks.Lasso instead."
    )
    with pytest.warns(DeprecationWarning, match=r"chainer.optimizer.Lasso is deprecated from v4"):
        assert isinstance(optimizer.Lasso(0.5), chainer.optimizer_hooks.Lasso)


def test_rule_of_a_never_initialized_parameter_round_trips_without_state(tmp_path):
    # Its rule counts updates (t > 0, as in Chainer 7) but makes no state; the saved file
    # then has t and no state, and loads into an optimizer whose parameter is also
    # uninitialized. A partial state stays an error.
    class Lazy(chainer.Link):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.w = chainer.Parameter(numpy.ones(2, numpy.float32))
                self.unused = chainer.Parameter()

    saved = optimizers.Adam().setup(Lazy())
    for _ in range(2):
        saved.target.cleargrads()
        saved.target.w.grad = numpy.ones(2, numpy.float32)
        saved.update()
    assert saved.target.unused.update_rule.t == 2 and saved.target.unused.update_rule.state is None
    path = tmp_path / "lazy.npz"
    chainer.serializers.save_npz(path, saved)
    fresh = optimizers.Adam().setup(Lazy())
    chainer.serializers.load_npz(path, fresh)
    assert fresh.target.unused.update_rule.t == 2 and fresh.target.unused.update_rule.state is None
    numpy.testing.assert_array_equal(fresh.target.w.update_rule.state["m"], saved.target.w.update_rule.state["m"])
    with pytest.raises(KeyError):
        CountingRule().serialize(DictDeserializer({"t": 3}))  # an initialized parameter's rule


class _TwoLayers(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = chainer.links.Linear(3, 4)
            self.l2 = chainer.links.Linear(4, 2)


def _step(model, opt, loss_of):
    model.cleargrads()
    loss_of(model).backward()
    opt.update()


def _cut_after_l1(model):
    # A classic silent bug: .array leaves the graph, so l1 gets no gradient.
    x = numpy.ones((2, 3), numpy.float32)
    return F.sum(model.l2(F.relu(chainer.Variable(model.l1(x).array))))


def test_debug_mode_names_the_parameters_that_backprop_did_not_reach():
    model = _TwoLayers()
    opt = optimizers.SGD(lr=0.1).setup(model)
    w1 = model.l1.W.array.copy()
    with chainer.using_config("debug", True):
        with pytest.warns(chainer.warnings.MissingGradientWarning) as record:
            _step(model, opt, _cut_after_l1)
    message = str(record[0].message)
    assert "SGD.update: 2 of 4 parameters received no gradient" in message
    assert "/l1/W" in message and "/l1/b" in message and "/l2/" not in message
    assert record[0].filename == __file__  # points at the caller's update()
    # The update itself is Chainer's: a zero gradient, so plain SGD leaves l1 as it was.
    numpy.testing.assert_array_equal(model.l1.W.array, w1)


def test_no_missing_gradient_report_outside_debug_mode_or_for_frozen_links():
    model = _TwoLayers()
    opt = optimizers.SGD(lr=0.1).setup(model)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _step(model, opt, _cut_after_l1)  # debug off: Chainer 7.8.1's silence
        model.l1.disable_update()  # frozen on purpose: nothing to report
        with chainer.using_config("debug", True):
            _step(model, opt, _cut_after_l1)
            # and a graph that reaches every parameter reports nothing either
            model.l1.enable_update()
            _step(model, opt, lambda m: F.sum(m.l2(F.relu(m.l1(numpy.ones((2, 3), numpy.float32))))))
