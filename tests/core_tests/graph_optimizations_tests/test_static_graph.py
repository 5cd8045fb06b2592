"""chainer.static_graph: a replayed schedule gives exactly what define-by-run gives."""

import copy
import pickle

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import optimizers


def _param(rng, *shape, scale=0.3):
    return chainer.Parameter(rng.normal(scale=scale, size=shape).astype(numpy.float32))


class MLP(chainer.Chain):
    def __init__(self, sizes=(6, 8, 8, 3), dropout=0.0, seed=0):
        super().__init__()
        rng = numpy.random.default_rng(seed)
        self.n = len(sizes) - 1
        self.dropout = dropout
        with self.init_scope():
            for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
                setattr(self, f"W{i}", _param(rng, b, a))
                setattr(self, f"b{i}", _param(rng, b))

    def define_by_run(self, x):
        h = x
        for i in range(self.n):
            h = F.linear(h, getattr(self, f"W{i}"), getattr(self, f"b{i}"))
            if i < self.n - 1:
                h = F.relu(h)
                if self.dropout:
                    h = F.dropout(h, self.dropout)
        return h


class StaticMLP(MLP):
    forward = chainer.static_graph(MLP.define_by_run)


class DynamicMLP(MLP):
    forward = MLP.define_by_run


class SmallCNN(chainer.Chain):
    """conv 3x3 (im2col + GEMM) -> ReLU -> 2x2 max pooling -> linear."""

    def __init__(self, seed=0):
        super().__init__()
        rng = numpy.random.default_rng(seed)
        with self.init_scope():
            self.Wc = _param(rng, 4, 2 * 9)
            self.bc = _param(rng, 4)
            self.Wf = _param(rng, 3, 4 * 2 * 2)

    def define_by_run(self, x):
        n, _, h, w = x.shape
        col = F.im2col(x, 3, pad=1)
        col = F.reshape(F.transpose(col, (0, 2, 3, 1)), (n * h * w, -1))
        y = F.linear(col, self.Wc, self.bc)
        y = F.transpose(F.reshape(y, (n, h, w, 4)), (0, 3, 1, 2))
        y = F.relu(y)
        y = F.max(F.reshape(y, (n, 4, h // 2, 2, w // 2, 2)), axis=(3, 5))
        return F.linear(y, self.Wf)


class StaticCNN(SmallCNN):
    forward = chainer.static_graph(SmallCNN.define_by_run)


class DynamicCNN(SmallCNN):
    forward = SmallCNN.define_by_run


def _loss(y, t):
    return -F.sum(F.select_item(F.log_softmax(y), t)) / y.shape[0]


def _train_and_compare(static, dynamic, make_batch, steps=4, seed=1):
    """Train both models side by side; outputs and gradients must match bit for bit."""
    opt_s = optimizers.MomentumSGD(lr=0.1).setup(static)
    opt_d = optimizers.MomentumSGD(lr=0.1).setup(dynamic)
    rng = numpy.random.default_rng(seed)
    for _ in range(steps):
        x, t = make_batch(rng)
        state = numpy.random.get_state()
        static.cleargrads()
        y_s = static(x)
        _loss(y_s, t).backward()
        numpy.random.set_state(state)
        dynamic.cleargrads()
        y_d = dynamic(x)
        _loss(y_d, t).backward()
        numpy.testing.assert_array_equal(y_s.array, y_d.array)
        for (name, p), (_, q) in zip(sorted(static.namedparams()), sorted(dynamic.namedparams())):
            numpy.testing.assert_array_equal(p.grad, q.grad, err_msg=name)
        opt_s.update()
        opt_d.update()
    return static


def _graph_signature(y):
    """The backward graph below ``y``: per function, its class, rank, retained data and
    the nodes it links to (shape, dtype, rank, whether they require a gradient)."""
    result, seen, stack = [], set(), [y.creator_node]
    while stack:
        f = stack.pop()
        if f is None or id(f) in seen:
            continue
        seen.add(id(f))
        inputs = tuple((n.shape, n.dtype, n.rank, n.requires_grad, n.data is not None) for n in f.inputs)
        outputs = tuple((o().shape, o().rank, o().data is not None) for o in f.outputs if o() is not None)
        result.append((type(f).__name__, f.rank, inputs, outputs, f._input_indexes_to_retain))
        stack.extend(n.creator_node for n in f.inputs)
    return sorted(result, key=repr)


def test_replay_with_enable_double_backprop_builds_the_graph_define_by_run_builds():
    class ExactCNN(SmallCNN):
        forward = chainer.static_graph(enable_double_backprop=True)(SmallCNN.define_by_run)

    static, dynamic = ExactCNN(), DynamicCNN()
    x = chainer.Variable(numpy.random.normal(size=(2, 2, 4, 4)).astype(numpy.float32))
    for _ in range(3):
        y_s, y_d = static(x), dynamic(x)
        assert _graph_signature(y_s) == _graph_signature(y_d)
        assert len(_graph_signature(y_s)) == 11


def test_fast_replay_makes_one_node_for_the_chain():
    static, dynamic = StaticCNN(), DynamicCNN()
    x = chainer.Variable(numpy.random.normal(size=(2, 2, 4, 4)).astype(numpy.float32))
    static(x)
    y_s, y_d = static(x), dynamic(x)
    node = y_s.creator
    assert node.label == "StaticScheduleFunction"
    # Its inputs: the parameters and the argument; the output keeps define-by-run's rank.
    expected = {id(v.node) for v in (static.Wc, static.bc, static.Wf, x)}
    assert {id(n) for n in node.inputs} == expected
    assert y_s.rank == y_d.rank == 11
    assert node.rank == 10


def _mlp_batch(rng):
    return rng.normal(size=(5, 6)).astype(numpy.float32), rng.integers(0, 3, 5).astype(numpy.int32)


def _cnn_batch(rng):
    return rng.normal(size=(2, 2, 4, 4)).astype(numpy.float32), rng.integers(0, 3, 2).astype(numpy.int32)


def test_mlp_outputs_and_gradients_are_bitwise_those_of_define_by_run():
    static = _train_and_compare(StaticMLP(), DynamicMLP(), _mlp_batch)
    (schedule,) = static.schedule_manager.schedules.values()
    assert schedule.n_replays == 3
    assert [s.label for s in schedule.steps] == ["LinearFunction", "ReLU", "LinearFunction", "ReLU", "LinearFunction"]


def test_cnn_outputs_and_gradients_are_bitwise_those_of_define_by_run():
    static = _train_and_compare(StaticCNN(), DynamicCNN(), _cnn_batch)
    (schedule,) = static.schedule_manager.schedules.values()
    assert schedule.n_replays == 3


@pytest.mark.skipif(not hasattr(F, "convolution_2d"), reason="chainer.functions.convolution_2d is not merged yet")
def test_cnn_with_convolution_and_pooling_functions():
    class Conv(chainer.Chain):
        def __init__(self):
            super().__init__()
            rng = numpy.random.default_rng(0)
            with self.init_scope():
                self.W = _param(rng, 4, 2, 3, 3)
                self.Wf = _param(rng, 3, 4 * 2 * 2)

        def define_by_run(self, x):
            h = F.max_pooling_2d(F.relu(F.convolution_2d(x, self.W, pad=1)), 2)
            return F.linear(h, self.Wf)

    class S(Conv):
        forward = chainer.static_graph(Conv.define_by_run)

    class Dyn(Conv):
        forward = Conv.define_by_run

    _train_and_compare(S(), Dyn(), _cnn_batch)


def test_dropout_draws_a_new_mask_in_each_replay():
    static = _train_and_compare(StaticMLP(dropout=0.5), DynamicMLP(dropout=0.5), _mlp_batch, steps=5)
    x = numpy.ones((4, 6), numpy.float32)
    a, b = static(x).array, static(x).array
    assert not numpy.array_equal(a, b)


def test_double_backprop_through_a_replay():
    def grad_norm(model, x):
        x = chainer.Variable(x)
        y = F.sum(F.square(model(x)))
        (gx,) = chainer.grad([y], [x], enable_double_backprop=True)
        model.cleargrads()
        F.sum(F.square(gx)).backward()
        return gx.array, {n: p.grad.copy() for n, p in model.namedparams()}

    static, dynamic = StaticMLP(), DynamicMLP()
    x = numpy.random.normal(size=(3, 6)).astype(numpy.float32)
    for _ in range(3):
        gs, ps = grad_norm(static, x)
        gd, pd = grad_norm(dynamic, x)
        numpy.testing.assert_array_equal(gs, gd)
        for name in ps:
            numpy.testing.assert_array_equal(ps[name], pd[name])
    assert next(iter(static.schedule_manager.schedules.values())).n_replays == 2


def test_several_calls_per_iteration():
    static, dynamic = StaticMLP(), DynamicMLP()
    x1, x2 = (numpy.random.normal(size=(2, 6)).astype(numpy.float32) for _ in range(2))
    # Recorded alone: a graph mixing the recording call (define-by-run's functions)
    # with replays (one node each) may sum a parameter's three gradients in another order.
    static(x1)
    for _ in range(3):
        for model in (static, dynamic):
            model.cleargrads()
            F.sum(model(x1) * model(x2) + model(x1)).backward()
        for (_, p), (_, q) in zip(sorted(static.namedparams()), sorted(dynamic.namedparams())):
            numpy.testing.assert_array_equal(p.grad, q.grad)
    static.schedule_manager.end_forward()  # accepted, nothing to release


def test_input_gradients_and_variable_arguments():
    static, dynamic = StaticMLP(), DynamicMLP()
    data = numpy.random.normal(size=(2, 6)).astype(numpy.float32)
    for _ in range(3):
        grads = []
        for model in (static, dynamic):
            x = chainer.Variable(data.copy())
            F.sum(model(x)).backward()
            grads.append(x.grad)
        numpy.testing.assert_array_equal(*grads)


def test_no_backprop_replay_builds_no_graph():
    static = StaticMLP()
    x = numpy.ones((2, 6), numpy.float32)
    with chainer.no_backprop_mode():
        static(x)
        y = static(x)
    assert y.creator is None
    numpy.testing.assert_array_equal(y.array, DynamicMLP()(x).array)


def test_a_new_schedule_per_signature_and_cache_size():
    class Keep(MLP):
        forward = chainer.static_graph(minimize_cache_size=False)(MLP.define_by_run)

    for cls, expected in ((StaticMLP, 1), (Keep, 3)):
        model = cls()
        for batch in (2, 3, 2, 3):
            model(numpy.ones((batch, 6), numpy.float32))
        with chainer.using_config("train", False):
            model(numpy.ones((2, 6), numpy.float32))
        assert len(model.schedule_manager.schedules) == expected


def test_force_test_define_by_run():
    class ForceDbr(MLP):
        forward = chainer.static_graph(force_test_define_by_run=True)(MLP.define_by_run)

    model = ForceDbr()
    with chainer.using_config("train", False):
        model(numpy.ones((2, 6), numpy.float32))
    assert "schedule_manager" not in model.__dict__
    model(numpy.ones((2, 6), numpy.float32))
    assert len(model.schedule_manager.schedules) == 1


def test_use_static_graph_false_calls_the_method_as_is():
    model = StaticMLP()
    x = numpy.ones((2, 6), numpy.float32)
    with chainer.using_config("use_static_graph", False):
        for _ in range(3):
            y = model(x)
    assert "schedule_manager" not in model.__dict__
    assert y.creator.label == "LinearFunction"
    numpy.testing.assert_array_equal(y.array, DynamicMLP()(x).array)


def test_function_hooks_see_replayed_functions():
    class Count(chainer.FunctionHook):
        name = "count"

        def __init__(self):
            self.labels = []

        def forward_preprocess(self, function, in_data):
            self.labels.append(function.label)

    model = StaticMLP()
    x = numpy.ones((2, 6), numpy.float32)
    model(x)
    with Count() as hook:
        model(x)
    assert hook.labels == ["LinearFunction", "ReLU", "LinearFunction", "ReLU", "LinearFunction"]


def test_static_code_runs_in_every_call():
    class WithSideEffect(MLP):
        def __init__(self):
            super().__init__()
            self.seen = []

        @chainer.static_code
        def scale(self, h):
            self.seen.append(float(h.array.sum()))
            return h.array * 2

        @chainer.static_graph
        def forward(self, x):
            h = F.relu(F.linear(x, self.W0, self.b0))
            return F.linear(self.scale(h), self.W1, self.b1)

    model = WithSideEffect()
    xs = [numpy.random.normal(size=(2, 6)).astype(numpy.float32) for _ in range(3)]
    ys = [model(x).array for x in xs]
    assert len(model.seen) == 3 and len(set(model.seen)) == 3
    for x, y in zip(xs, ys):
        h = numpy.maximum(x @ model.W0.array.T + model.b0.array, 0) * 2
        numpy.testing.assert_allclose(y, h @ model.W1.array.T + model.b1.array, rtol=1e-5)


def test_random_numbers_drawn_outside_functions_keep_define_by_run():
    class Noisy(MLP):
        @chainer.static_graph
        def forward(self, x):
            noise = numpy.random.normal(size=x.shape).astype(numpy.float32)
            return F.linear(x + noise, self.W0, self.b0)

    model = Noisy()
    x = numpy.zeros((2, 6), numpy.float32)
    with pytest.warns(RuntimeWarning, match="random numbers were drawn outside"):
        a = model(x).array
    b = model(x).array
    assert not numpy.array_equal(a, b)
    assert list(model.schedule_manager.schedules.values()) == ["define-by-run"]


def test_backward_inside_the_chain_keeps_define_by_run():
    class GradPenalty(MLP):
        @chainer.static_graph
        def forward(self, x):
            x = chainer.Variable(x)
            y = F.sum(F.linear(x, self.W0, self.b0))
            (gx,) = chainer.grad([y], [x], enable_double_backprop=True)
            return F.sum(F.square(gx))

    model = GradPenalty()
    with pytest.warns(RuntimeWarning, match="backpropagation ran inside"):
        model(numpy.ones((2, 6), numpy.float32))
    model(numpy.ones((2, 6), numpy.float32))


def test_nested_static_chains_are_refused():
    class Outer(chainer.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.inner = StaticMLP()

        @chainer.static_graph
        def forward(self, x):
            return self.inner(x)

    with pytest.raises(RuntimeError, match="nested static_graph is not allowed"):
        Outer()(numpy.ones((2, 6), numpy.float32))


def test_lazily_initialized_parameters_are_recorded_on_the_next_call():
    class Lazy(chainer.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.W = chainer.Parameter(chainer.initializers.Normal(1.0))

        @chainer.static_graph
        def forward(self, x):
            if self.W.array is None:
                self.W.initialize((3, x.shape[1]))
            return F.linear(x, self.W)

    model = Lazy()
    x = numpy.ones((2, 4), numpy.float32)
    y0 = model(x).array
    assert model.schedule_manager.schedules == {}
    y1 = model(x).array
    y2 = model(x).array
    numpy.testing.assert_array_equal(y0, y1)
    numpy.testing.assert_array_equal(y1, y2)
    assert next(iter(model.schedule_manager.schedules.values())).n_replays == 1


def test_replaced_parameter_arrays_and_copies():
    model = StaticMLP()
    x = numpy.ones((2, 6), numpy.float32)
    model(x)
    model(x)
    # In-place updates are seen by the replay; a new array of another dtype records anew.
    model.W0.array[...] = 0
    numpy.testing.assert_array_equal(model(x).array, DynamicMLP.define_by_run(model, x).array)
    model.W0.array = model.W0.array.astype(numpy.float64)
    model.b0.array = model.b0.array.astype(numpy.float64)
    with pytest.raises(Exception, match="dtype"):
        model(x)

    model = StaticMLP()
    model(x)
    model(x)
    clone = model.copy(mode="copy")
    clone.W2.array[...] = 0
    numpy.testing.assert_array_equal(clone(x).array, numpy.broadcast_to(clone.b2.array, (2, 3)))
    numpy.testing.assert_array_equal(clone(x).array, numpy.broadcast_to(clone.b2.array, (2, 3)))
    assert not numpy.array_equal(model(x).array, clone(x).array)
    shared = model.copy(mode="share")
    numpy.testing.assert_array_equal(shared(x).array, model(x).array)
    assert shared.schedule_manager is not model.schedule_manager
    restored = pickle.loads(pickle.dumps(model))
    numpy.testing.assert_array_equal(restored(x).array, model(x).array)
    assert copy.deepcopy(model).schedule_manager.schedules == {}


def test_structured_arguments_and_results():
    class Pairs(MLP):
        @chainer.static_graph
        def forward(self, xs, scale=2.0):
            a, b = xs["a"], xs["b"]
            ha = F.linear(a, self.W0, self.b0)
            return {"sum": ha * scale + F.linear(b, self.W0, self.b0), "pair": (ha, a)}

    model = Pairs()
    rng = numpy.random.default_rng(0)
    for scale in (2.0, 2.0, 3.0, 3.0):
        a = chainer.Variable(rng.normal(size=(2, 6)).astype(numpy.float32))
        b = rng.normal(size=(2, 6)).astype(numpy.float32)
        out = model({"a": a, "b": b}, scale=scale)
        ref = Pairs.forward.__wrapped__(model, {"a": a, "b": b}, scale=scale)
        numpy.testing.assert_array_equal(out["sum"].array, ref["sum"].array)
        assert out["pair"][1] is a
        numpy.testing.assert_array_equal(out["pair"][0].array, ref["pair"][0].array)
    assert len(model.schedule_manager.schedules) == 1  # minimize_cache_size keeps the latest


def test_old_style_functions_are_replayed():
    class Twice(chainer.Function):
        def forward(self, inputs):
            return (inputs[0] * 2,)

        def backward(self, inputs, grads):
            return (grads[0] * 2,)

    class WithOld(MLP):
        @chainer.static_graph
        def forward(self, x):
            return Twice()(F.linear(x, self.W0, self.b0))

    model = WithOld()
    x = numpy.ones((2, 6), numpy.float32)
    for _ in range(3):
        model.cleargrads()
        y = model(x)
        F.sum(y).backward()
        numpy.testing.assert_array_equal(model.b0.grad, numpy.full(8, 4.0, numpy.float32))
        numpy.testing.assert_allclose(y.array, 2 * (x @ model.W0.array.T + model.b0.array), rtol=1e-6)


def test_debug_mode_keeps_type_checks():
    model = StaticMLP()
    model(numpy.ones((2, 6), numpy.float32))
    with chainer.using_config("debug", True):
        y = model(numpy.ones((2, 6), numpy.float32))
    assert y.creator.stack is not None


def test_global_link_hooks_run_define_by_run():
    class Count(chainer.LinkHook):
        name = "count"

        def __init__(self):
            self.n = 0

        def forward_preprocess(self, args):
            self.n += 1

    model = StaticMLP()
    x = numpy.ones((2, 6), numpy.float32)
    model(x)
    with Count() as hook:
        model(x)
    assert hook.n == 1
    assert next(iter(model.schedule_manager.schedules.values())).n_replays == 0


def test_verbosity(capsys):
    class Verbose(MLP):
        forward = chainer.static_graph(verbosity_level=2)(MLP.define_by_run)

    model = Verbose()
    model(numpy.ones((2, 6), numpy.float32))
    model(numpy.ones((2, 6), numpy.float32))
    out = capsys.readouterr().out
    assert "recorded a schedule of 5 steps" in out
    assert "#4 LinearFunction(v3, external:W2, external:b2) -> (v4)" in out
    assert "replaying" in out
    assert "LinearFunction" in model.schedule_manager.describe()


def test_invalid_uses():
    with pytest.raises(TypeError, match="unexpected option"):
        chainer.static_graph(verbose=1)
    with pytest.raises(ValueError, match="verbosity_level"):
        chainer.static_graph(verbosity_level=-1)
    with pytest.raises(TypeError, match="expected the method"):
        chainer.static_graph(3)
    with pytest.raises(TypeError, match="expected a function"):
        chainer.static_code(3)

    class Unhashable(MLP):
        @chainer.static_graph
        def forward(self, x, options):
            return F.linear(x, self.W0)

    with pytest.raises(TypeError, match="must be variables, arrays"):
        Unhashable()(numpy.ones((2, 6), numpy.float32), {"a": {1, 2}})


def test_chain_exposes_the_schedule_in_use_as_static_schedule():
    import importlib

    # (chainer.graph_optimizations.static_graph, the attribute, is the decorator.)
    sg = importlib.import_module("chainer.graph_optimizations.static_graph")

    model = StaticMLP()
    x = numpy.random.RandomState(0).rand(2, 6).astype(numpy.float32)
    with chainer.using_config("use_static_graph", False):
        model(x)
    assert not hasattr(model, "static_schedule") and not hasattr(model, "schedule_manager")
    model(x)
    recorded = model.static_schedule
    assert isinstance(recorded, sg.StaticScheduleFunction)
    model(x)
    assert model.static_schedule is recorded and recorded.n_replays == 1
    assert copy.deepcopy(model).static_schedule is None  # bound to the original's parameters
    info = sg.ArrayInfo(x)
    assert info == sg.ArrayInfo(numpy.zeros((2, 6), numpy.float32))
    assert info != sg.ArrayInfo(numpy.zeros((2, 6), numpy.float64)) and info != sg.ArrayInfo(None)


def test_schedules_are_keyed_by_schedule_info():
    import importlib

    sg = importlib.import_module("chainer.graph_optimizations.static_graph")
    model = StaticMLP()
    x = numpy.ones((2, 6), numpy.float32)
    model(x)
    (key,) = model.schedule_manager.schedules
    assert isinstance(key, sg.ScheduleInfo)
    assert key.train is True and key.enable_backprop is True
    with chainer.using_config("train", False):
        model(x)
    assert {k.train for k in model.schedule_manager.schedules} == {False}  # minimize_cache_size keeps one
    utilities = importlib.import_module("chainer.graph_optimizations.static_graph_utilities")
    with pytest.raises(NotImplementedError, match="records every function through a function hook"):
        utilities.static_forward_optimizations(None, ())
