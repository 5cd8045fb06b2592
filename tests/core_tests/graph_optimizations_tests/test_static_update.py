"""The recorded optimizer update of a static chain (chainer.graph_optimizations._update):
after a generic update, ``optimizer.update()`` runs the recorded list of parameter
updates, bit for bit the generic update; whatever could change the list makes the
step generic again."""

import copy
import pickle
from unittest import mock

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import optimizer_hooks, optimizers
from chainer.graph_optimizations import _update

CPU_KERNEL_SLOTS = ()


class Layer(chainer.Link):
    def __init__(self, rng, n_in, n_out):
        super().__init__()
        with self.init_scope():
            self.W = chainer.Parameter(rng.normal(scale=0.5, size=(n_out, n_in)).astype(numpy.float32))
            self.b = chainer.Parameter(rng.normal(scale=0.1, size=n_out).astype(numpy.float32))

    def forward(self, x):
        return F.linear(x, self.W, self.b)


class Net(chainer.Chain):
    """Two layers and a parameter the forward never uses (its gradient stays None)."""

    def __init__(self):
        super().__init__()
        rng = numpy.random.default_rng(0)
        with self.init_scope():
            self.l1 = Layer(rng, 5, 7)
            self.l2 = Layer(rng, 7, 3)
            self.unused = chainer.Parameter(rng.normal(size=(2, 2)).astype(numpy.float32))

    @chainer.static_graph
    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))


class DefineByRunNet(Net):
    forward = Net.forward.__wrapped__


OPTIMIZERS = {
    "sgd": lambda: optimizers.SGD(lr=0.1),
    "momentum_sgd": lambda: optimizers.MomentumSGD(lr=0.05, momentum=0.8),
    "adam": lambda: optimizers.Adam(alpha=0.01),
    "amsgrad_weight_decay": lambda: optimizers.Adam(alpha=0.01, amsgrad=True, weight_decay_rate=0.01),
}


def _data(step):
    rng = numpy.random.default_rng(100 + step)
    return rng.normal(size=(4, 5)).astype(numpy.float32), rng.normal(size=(4, 3)).astype(numpy.float32)


def _loss(model, step):
    x, t = _data(step)
    return F.sum(F.square(model(x) - t))


class Pair:
    """The model trained with the recorded update and its twin trained with the generic
    update (the plan taken away), stepped alike."""

    def __init__(self, make_optimizer):
        self.models = Net(), Net()
        self.opts = make_optimizer().setup(self.models[0]), make_optimizer().setup(self.models[1])
        self.opts[1]._update_plan = None
        self.step = 0

    @property
    def plan(self):
        return self.opts[0]._update_plan

    def both(self, action):
        for model, opt in zip(self.models, self.opts):
            action(model, opt)

    def train(self, n=1, lossfun=False):
        for _ in range(n):
            for model, opt in zip(self.models, self.opts):
                if lossfun:
                    opt.update(_loss, model, self.step)
                else:
                    model.cleargrads()
                    _loss(model, self.step).backward()
                    opt.update()
            self.step += 1
        self.check()

    def check(self):
        (fast, slow), (fast_opt, slow_opt) = self.models, self.opts
        assert (fast_opt.t, fast_opt.epoch) == (slow_opt.t, slow_opt.epoch)
        named_slow = dict(slow.namedparams())
        for name, p in fast.namedparams():
            q = named_slow[name]
            assert p.array.tobytes() == q.array.tobytes(), name
            assert (p.grad is None) == (q.grad is None), name
            if p.grad is not None:
                assert p.grad.tobytes() == q.grad.tobytes(), name
            assert p.update_rule.t == q.update_rule.t, name
            state_p, state_q = p.update_rule.state or {}, q.update_rule.state or {}
            assert sorted(state_p) == sorted(state_q), name
            for key in state_p:
                assert numpy.asarray(state_p[key]).tobytes() == numpy.asarray(state_q[key]).tobytes(), (name, key)

    def recorded_steps(self, n=1, **kwargs):
        """The number of these n steps the recorded list made."""
        before = self.plan.steps
        self.train(n, **kwargs)
        return self.plan.steps - before


@pytest.fixture(params=sorted(OPTIMIZERS))
def pair(request, cpu_code):
    return Pair(OPTIMIZERS[request.param])


def test_plan_only_for_static_chains():
    assert isinstance(optimizers.SGD().setup(Net())._update_plan, _update.UpdatePlan)
    assert optimizers.SGD().setup(DefineByRunNet())._update_plan is None


def test_bit_identical_over_steps(pair):
    pair.train()  # recorded (and the schedule too)
    assert pair.plan.recorded
    assert pair.recorded_steps(5) == 5
    # The unused parameter got zero gradients, as the generic update gives it.
    assert pair.models[0].unused.grad.tobytes() == numpy.zeros((2, 2), numpy.float32).tobytes()


def test_sgd_matches_the_formula(cpu_code):
    model = Net()
    opt = optimizers.SGD(lr=0.1).setup(model)
    for step in range(3):
        model.cleargrads()
        _loss(model, step).backward()
        before = {
            name: (p.array.copy(), p.grad.copy() if p.grad is not None else None) for name, p in model.namedparams()
        }
        opt.update()
        for name, p in model.namedparams():
            array, grad = before[name]
            expected = array if grad is None else array - numpy.float32(0.1) * grad
            numpy.testing.assert_allclose(p.array, expected, rtol=1e-6, atol=1e-7)
    assert opt._update_plan.steps == 2


def test_update_with_lossfun(pair):
    pair.train(lossfun=True)
    assert pair.recorded_steps(3, lossfun=True) == 3


def test_zerograds(pair):
    with pytest.warns(DeprecationWarning):
        pair.both(lambda model, opt: opt.use_cleargrads(False))
    pair.train(lossfun=True)
    assert pair.recorded_steps(3, lossfun=True) == 3


def test_weight_decay_and_gradient_clipping(pair):
    def hooks(model, opt):
        opt.add_hook(optimizer_hooks.WeightDecay(0.01))
        opt.add_hook(optimizer_hooks.GradientClipping(0.5))
        opt.add_hook(optimizer_hooks.GradientHardClipping(-0.05, 0.05), timing="post")

    pair.both(hooks)
    pair.train()
    assert pair.recorded_steps(4) == 4


def test_hyperparameters_changed_between_steps(pair):
    pair.train(2)
    name = "alpha" if isinstance(pair.opts[0], optimizers.Adam) else "lr"
    for k in range(3):
        pair.both(lambda model, opt: setattr(opt.hyperparam, name, getattr(opt.hyperparam, name) * 0.5))
        # One parameter's own rate too.
        pair.both(lambda model, opt, k=k: setattr(model.l2.W.update_rule.hyperparam, name, 0.001 * (k + 1)))
        assert pair.recorded_steps() == 1


def test_disable_update_midway(pair):
    pair.train(2)
    pair.both(lambda model, opt: model.l1.disable_update())
    frozen = pair.models[0].l1.W.array.copy()
    assert pair.recorded_steps(2) == 2
    assert pair.models[0].l1.W.array.tobytes() == frozen.tobytes()
    pair.both(lambda model, opt: model.l1.enable_update())
    assert pair.recorded_steps(2) == 2
    assert pair.models[0].l1.W.array.tobytes() != frozen.tobytes()


def test_known_hooks_added_and_removed_midway(pair):
    pair.train(2)
    pair.both(lambda model, opt: opt.add_hook(optimizer_hooks.Lasso(0.01)))
    pair.both(lambda model, opt: opt.add_hook(optimizer_hooks.GradientClipping(0.1)))
    assert pair.recorded_steps(2) == 2
    pair.both(lambda model, opt: opt.remove_hook("GradientClipping"))
    assert pair.recorded_steps(2) == 2


def test_rule_hooks_run_each_step(pair):
    pair.train()
    pair.both(lambda model, opt: model.l2.W.update_rule.add_hook(optimizer_hooks.WeightDecay(0.1)))
    assert pair.recorded_steps(3) == 3


def test_epoch_counter(pair):
    pair.train()
    pair.both(lambda model, opt: opt.new_epoch())
    assert pair.recorded_steps(2) == 2


# -- fallbacks: the step runs the generic update, the next one records again -------------


def _fallback_then_recorded(pair, change, n_generic=1):
    pair.train(2)
    pair.both(change)
    assert pair.recorded_steps(n_generic) == 0
    assert pair.recorded_steps(2) == 2


def test_parameter_added(pair):
    def add(model, opt):
        with model.init_scope():
            model.extra = chainer.Parameter(numpy.ones(3, numpy.float32))
        model.extra.update_rule = opt.create_update_rule()

    _fallback_then_recorded(pair, add)


def test_parameter_removed(pair):
    _fallback_then_recorded(pair, lambda model, opt: delattr(model, "unused"))


def test_rule_replaced(pair):
    def replace(model, opt):
        model.l1.b.update_rule = opt.create_update_rule()

    _fallback_then_recorded(pair, replace)


def test_parameter_array_replaced(pair):
    def replace(model, opt):
        model.l1.W.array = model.l1.W.array.copy()

    _fallback_then_recorded(pair, replace)


def test_state_loaded(pair, tmp_path):
    pair.train(2)
    for k, opt in enumerate(pair.opts):
        chainer.serializers.save_npz(tmp_path / f"opt{k}.npz", opt)
    pair.train(1)
    for k, opt in enumerate(pair.opts):
        chainer.serializers.load_npz(tmp_path / f"opt{k}.npz", opt)
    pair.check()
    pair.train(3)


def test_user_optimizer_hook_falls_back(pair):
    def hook(opt):
        for param in opt.target.params():
            if param.grad is not None:
                param.grad *= 0.5

    pair.train()
    pair.both(lambda model, opt: opt.add_hook(hook, name="halve"))
    assert pair.recorded_steps(2) == 0
    pair.both(lambda model, opt: opt.remove_hook("halve"))
    assert pair.recorded_steps(2) == 1  # the first step after the removal records


def test_user_per_param_hook_falls_back(pair):
    class Halve:
        call_for_each_param = True
        name = "halve"

        def __call__(self, rule, param):
            param.grad *= 0.5

    pair.train()
    pair.both(lambda model, opt: opt.add_hook(Halve()))
    assert pair.recorded_steps(2) == 0


def test_loss_scaling_falls_back(pair):
    pair.train()

    def scaled_step(model, opt):
        model.cleargrads()
        _loss(model, pair.step).backward(loss_scale=8.0)
        opt.update()

    pair.both(scaled_step)  # a loss scale on the parameters only
    pair.check()
    assert pair.plan.steps == 0
    pair.both(lambda model, opt: opt.loss_scaling(scale=4.0))
    assert pair.recorded_steps(2, lossfun=True) == 0
    pair.both(lambda model, opt: opt.set_loss_scale(None))
    assert pair.recorded_steps(2, lossfun=True) == 1


def test_patched_methods_fall_back(pair):
    pair.train(2)
    with mock.patch.object(pair.opts[0], "reallocate_cleared_grads", wraps=pair.opts[0].reallocate_cleared_grads) as m:
        assert pair.recorded_steps() == 0
    assert m.called
    rule = pair.models[0].l2.b.update_rule
    with mock.patch.object(rule, "update", wraps=rule.update) as m:
        assert pair.recorded_steps() == 0
    assert m.call_count == 1
    base = chainer.optimizer.UpdateRule
    with mock.patch.object(base, "update", autospec=True, side_effect=base.update) as m:
        assert pair.recorded_steps() == 0
    assert m.call_count == 2 * 5  # both models, five parameters each


def test_fp32_update_of_float16_not_recorded():
    model = Net()
    for p in model.params():
        p.array = p.array.astype(numpy.float16)
    opt = optimizers.SGD(lr=0.1).setup(model)
    opt.use_fp32_update()
    for step in range(3):
        model.cleargrads()
        x, t = _data(step)
        F.sum(F.square(model(x.astype(numpy.float16)) - t.astype(numpy.float16))).backward()
        opt.update()
    assert opt._update_plan.steps == 0


def test_copies_record_again():
    model = Net()
    opt = optimizers.SGD().setup(model)
    for step in range(2):
        opt.update(_loss, model, step)
    assert opt._update_plan.recorded
    for other in (copy.deepcopy(opt), pickle.loads(pickle.dumps(opt))):
        assert not other._update_plan.recorded
        other.update(_loss, other.target, 2)
        assert other._update_plan.recorded and other._update_plan.steps == 0
