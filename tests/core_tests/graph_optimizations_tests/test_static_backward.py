"""chainer.static_graph: the backward of a replay runs the recorded backward schedule and
gives define-by-run's gradients bit for bit; where it cannot, replays fall back."""

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer.graph_optimizations import _replay

SCHEDULE_NODE = "StaticScheduleFunction"


def _param(rng, *shape):
    return chainer.Parameter(rng.normal(scale=0.4, size=shape).astype(numpy.float32))


class MLP(chainer.Chain):
    def __init__(self, sizes=(6, 8, 8, 3), bias=True, dropout=0.0, seed=0):
        super().__init__()
        rng = numpy.random.default_rng(seed)
        self.n, self.bias, self.dropout = len(sizes) - 1, bias, dropout
        with self.init_scope():
            for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
                setattr(self, f"W{i}", _param(rng, b, a))
                if bias:
                    setattr(self, f"b{i}", _param(rng, b))

    def define_by_run(self, x):
        h = x
        for i in range(self.n):
            h = F.linear(h, getattr(self, f"W{i}"), getattr(self, f"b{i}") if self.bias else None)
            if i < self.n - 1:
                h = F.relu(h)
                if self.dropout:
                    h = F.dropout(h, self.dropout)
        return h


class Tied(chainer.Chain):
    """One square weight applied three times, and a second one twice on one hidden
    value (branches of equal rank: their order decides how gradients are summed)."""

    def __init__(self, seed=0):
        super().__init__()
        rng = numpy.random.default_rng(seed)
        with self.init_scope():
            self.W = _param(rng, 5, 5)
            self.V = _param(rng, 5, 5)
            self.b = _param(rng, 5)

    def define_by_run(self, x):
        h = F.tanh(F.linear(x, self.W, self.b))
        h = F.tanh(F.linear(h, self.W, self.b))
        a, c = F.linear(h, self.V), F.sigmoid(F.matmul(h, self.V, transb=True))
        return F.linear(a * c + h, self.W, self.b)


def static_and_dynamic(cls, **options):
    static = type("Static" + cls.__name__, (cls,), {"forward": chainer.static_graph(**options)(cls.define_by_run)})
    dynamic = type("Dynamic" + cls.__name__, (cls,), {"forward": cls.define_by_run})
    return static, dynamic


def _grads(model):
    return {name: p.grad.copy() for name, p in model.namedparams()}


def _loss(y, t):
    return F.softmax_cross_entropy(y, t) if hasattr(F, "softmax_cross_entropy") else F.sum(y * y)


def _step(model, x, t, seed):
    numpy.random.seed(seed)  # dropout draws its mask from NumPy's global generator
    model.cleargrads()
    y = model(x)
    _loss(y, t).backward()
    return y, _grads(model)


@pytest.mark.parametrize(
    "make",
    [
        lambda: MLP(),
        lambda: MLP(bias=False),
        lambda: MLP(sizes=(7, 16, 4)),
        lambda: MLP(sizes=(6, 8, 8, 8, 8, 3), dropout=0.3),
    ],
    ids=["mlp", "no-bias", "one-hidden", "deep-dropout"],
)
def test_gradients_are_bitwise_those_of_define_by_run(make):
    proto = make()
    static_cls, dynamic_cls = static_and_dynamic(type(proto))
    static, dynamic = _same(proto, static_cls), _same(proto, dynamic_cls)
    rng = numpy.random.default_rng(3)
    for it in range(4):
        x = rng.normal(size=(4, proto.W0.shape[1])).astype(numpy.float32)
        t = rng.integers(0, 3, 4).astype(numpy.int32)
        y_s, g_s = _step(static, x, t, seed=it)
        y_d, g_d = _step(dynamic, x, t, seed=it)
        numpy.testing.assert_array_equal(y_s.array, y_d.array)
        assert g_s.keys() == g_d.keys()
        for name in g_s:
            numpy.testing.assert_array_equal(g_s[name], g_d[name], err_msg=name)
        if it > 0:
            assert y_s.creator.label == SCHEDULE_NODE


def _same(proto, cls):
    """A model of class ``cls`` with ``proto``'s configuration and weights."""
    model = cls.__new__(cls)
    chainer.Chain.__init__(model)
    model.n, model.bias, model.dropout = proto.n, proto.bias, proto.dropout
    with model.init_scope():
        for name, p in proto.namedparams():
            setattr(model, name[1:], chainer.Parameter(p.array.copy()))
    return model


def test_parameters_used_several_times():
    static_cls, dynamic_cls = static_and_dynamic(Tied)
    static, dynamic = static_cls(), dynamic_cls()
    rng = numpy.random.default_rng(0)
    for _ in range(3):
        data = rng.normal(size=(3, 5)).astype(numpy.float32)
        xs = [chainer.Variable(data.copy()) for _ in range(2)]
        for model, x in zip((static, dynamic), xs):
            model.cleargrads()
            F.sum(model(x) ** 2).backward()
        for (name, p), (_, q) in zip(sorted(static.namedparams()), sorted(dynamic.namedparams())):
            numpy.testing.assert_array_equal(p.grad, q.grad, err_msg=name)
        numpy.testing.assert_array_equal(xs[0].grad, xs[1].grad)
    assert static(xs[0]).creator.label == SCHEDULE_NODE


def test_backward_calls_follow_define_by_run_order():
    class Calls(chainer.FunctionHook):
        name = "calls"

        def __init__(self):
            self.labels = []

        def backward_preprocess(self, function, in_data, out_grad):
            self.labels.append((function.label, function.rank))

    static_cls, dynamic_cls = static_and_dynamic(Tied)
    static, dynamic = static_cls(), dynamic_cls()
    x = numpy.ones((2, 5), numpy.float32)
    static(x)
    orders = []
    for model in (static, dynamic):
        y = F.sum(model(x))
        with Calls() as hook:  # only around the backward: the replay took the fast path
            y.backward()
        orders.append(hook.labels)
    replayed, define_by_run = orders
    # The hook sees the chain's node (from the outside traversal), then the recorded
    # functions, in define-by-run's order, at define-by-run's ranks.
    assert replayed[1][0] == SCHEDULE_NODE
    assert [replayed[0]] + replayed[2:] == define_by_run
    assert len(define_by_run) == 11


def test_recorded_order_breaks_ties_as_the_traversal_does():
    # Two consumers of equal rank of one value: the order is the one they are queued in.
    schedule_cls, _ = static_and_dynamic(Tied)
    model = schedule_cls()
    x = numpy.ones((2, 5), numpy.float32)
    model(x)
    y = model(x)
    node = y.creator
    order = node._plan.orders.get((True,))
    assert order is None  # computed at the first backward
    F.sum(y).backward()
    order = node._plan.orders[(True,)]
    labels = [model.static_schedule.steps[k].label for k, *_ in order]
    assert labels == [
        "LinearFunction",
        "_ + _",
        "_ * _",
        "Sigmoid",
        "LinearFunction",  # queued by the product before the sigmoid queued MatMul
        "MatMul",
        "Tanh",
        "LinearFunction",
        "Tanh",
        "LinearFunction",
    ]


def test_a_parameter_used_outside_the_chain_too():
    static_cls, dynamic_cls = static_and_dynamic(MLP)
    static, dynamic = static_cls(), dynamic_cls()
    x = numpy.random.default_rng(0).normal(size=(3, 6)).astype(numpy.float32)
    for _ in range(3):
        for model in (static, dynamic):
            model.cleargrads()
            (F.sum(model(x)) + 0.1 * F.sum(model.W2 * model.W2)).backward()
        for (name, p), (_, q) in zip(sorted(static.namedparams()), sorted(dynamic.namedparams())):
            numpy.testing.assert_array_equal(p.grad, q.grad, err_msg=name)


def test_gradient_with_respect_to_arguments_and_chainer_grad():
    static_cls, dynamic_cls = static_and_dynamic(MLP)
    static, dynamic = static_cls(), dynamic_cls()
    data = numpy.random.default_rng(1).normal(size=(2, 6)).astype(numpy.float32)
    static(chainer.Variable(data))
    results = []
    for model in (static, dynamic):
        x = chainer.Variable(data.copy())
        y = model(x)
        (gx,) = chainer.grad([F.sum(y * y)], [x])
        results.append(gx.array)
        assert model.W0.grad is None  # chainer.grad leaves other gradients alone
    numpy.testing.assert_array_equal(*results)


# -- where the fast path does not apply ---------------------------------------------------


def _assert_same_grads(static, dynamic):
    for (name, p), (_, q) in zip(sorted(static.namedparams()), sorted(dynamic.namedparams())):
        numpy.testing.assert_array_equal(p.grad, q.grad, err_msg=name)


def test_function_hooks_in_the_forward_build_define_by_run_graph():
    static_cls, dynamic_cls = static_and_dynamic(MLP)
    static, dynamic = static_cls(), dynamic_cls()
    x = numpy.ones((2, 6), numpy.float32)
    static(x)
    with chainer.function_hooks.TimerHook():
        for model in (static, dynamic):
            model.cleargrads()
            y = model(x)
            F.sum(y).backward()
            assert y.creator.label == "LinearFunction"
    _assert_same_grads(static, dynamic)


def test_retain_grad_on_the_outputs():
    static_cls, dynamic_cls = static_and_dynamic(MLP)
    static, dynamic = static_cls(), dynamic_cls()
    x = numpy.ones((2, 6), numpy.float32)
    static(x)
    ys = []
    for model in (static, dynamic):
        y = model(x)
        F.sum(y * y).backward(retain_grad=True)
        ys.append(y)
    assert ys[0].creator.label == SCHEDULE_NODE
    numpy.testing.assert_array_equal(ys[0].grad, ys[1].grad)
    _assert_same_grads(static, dynamic)


def test_returning_a_variable_the_chain_also_uses_builds_define_by_run_graph():
    class TwoOutputs(MLP):
        def define_by_run(self, x):
            h = F.relu(F.linear(x, self.W0, self.b0))
            return h, F.linear(F.linear(h, self.W1, self.b1), self.W2, self.b2)

    static_cls, dynamic_cls = static_and_dynamic(TwoOutputs)
    static, dynamic = static_cls(), dynamic_cls()
    x = numpy.ones((2, 6), numpy.float32)
    static(x)
    assert static.static_schedule.fast_replay == "the chain returns a variable that it also applies functions to"
    hs = []
    for model in (static, dynamic):
        model.cleargrads()
        h, y = model(x)
        (F.sum(h) + F.sum(y * y)).backward(retain_grad=True)
        hs.append(h)
    # With retain_grad, h.grad holds both its gradients: from outside and from y.
    numpy.testing.assert_array_equal(hs[0].grad, hs[1].grad)
    assert hs[0].creator.label == "ReLU"
    _assert_same_grads(static, dynamic)


def test_function_hooks_in_the_backward_only_run_the_generic_mode():
    class Seen(chainer.FunctionHook):
        name = "seen"

        def __init__(self):
            self.labels = []

        def backward_postprocess(self, function, in_data, out_grad):
            self.labels.append(function.label)

    static_cls, dynamic_cls = static_and_dynamic(MLP)
    static, dynamic = static_cls(), dynamic_cls()
    x = numpy.ones((2, 6), numpy.float32)
    static(x)
    for model in (static, dynamic):
        model.cleargrads()
        y = F.sum(model(x))
        with Seen() as hook:
            y.backward()
        if model is static:
            # The recorded functions' backward, within the chain's node's.
            recorded = ["LinearFunction", "ReLU", "LinearFunction", "ReLU", "LinearFunction"]
            assert hook.labels == ["Sum", *recorded, SCHEDULE_NODE]
    _assert_same_grads(static, dynamic)


def test_debug_mode_in_the_backward_checks_the_recorded_functions():
    class Sqrt(chainer.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.W = chainer.Parameter(numpy.zeros((2, 2), numpy.float32))

        def define_by_run(self, x):
            return F.sqrt(F.linear(x, self.W))

    static_cls, _ = static_and_dynamic(Sqrt)
    model = static_cls()
    x = numpy.ones((1, 2), numpy.float32)
    model(x)
    y = model(x)
    assert y.creator.label == SCHEDULE_NODE
    with numpy.errstate(all="ignore"):  # the gradient of sqrt at 0 (and 0 * inf after it)
        with chainer.using_config("debug", True):
            with pytest.raises(RuntimeError, match="Inf is detected") as info:
                F.sum(y).backward()
        assert "replayed by chainer.static_graph" in str(info.value.__notes__)
        F.sum(model(x)).backward()  # outside debug mode it passes, as in define-by-run
    assert numpy.isinf(model.W.grad).all()


def test_a_wrong_gradient_is_reported_as_by_the_traversal():
    class WrongDtype(chainer.FunctionNode):
        def forward(self, inputs):
            return (inputs[0] * 2,)

        def backward(self, indexes, grad_outputs):
            return (chainer.Variable(grad_outputs[0].array.astype(numpy.float64)),)

    class Chain(MLP):
        def define_by_run(self, x):
            return WrongDtype().apply((F.linear(x, self.W0, self.b0),))[0]

    static_cls, dynamic_cls = static_and_dynamic(Chain)
    x = numpy.ones((2, 6), numpy.float32)
    for debug, error, message in (
        (False, TypeError, "WrongDtype.backward returned a gradient of dtype float64 for input 0"),
        (True, ValueError, "dtype of gradients returned from backward is incorrect"),
    ):
        for cls in (static_cls, dynamic_cls):
            model = cls()
            model(x)
            y = model(x)
            with chainer.using_config("debug", debug):
                with pytest.raises(error, match=message):
                    F.sum(y).backward()
            if cls is static_cls:
                assert y.creator.label == SCHEDULE_NODE


def test_double_backprop_through_the_fast_replay():
    def penalty(model, data):
        x = chainer.Variable(data.copy())
        y = F.sum(F.tanh(model(x)))
        (gx,) = chainer.grad([y], [x], enable_double_backprop=True)
        model.cleargrads()
        F.sum(gx * gx).backward()
        return gx.array, _grads(model)

    for options, check in (({}, numpy.testing.assert_allclose), ({"enable_double_backprop": True}, None)):
        static_cls, dynamic_cls = static_and_dynamic(MLP, **options)
        static, dynamic = static_cls(), dynamic_cls()
        data = numpy.random.default_rng(2).normal(size=(3, 6)).astype(numpy.float32)
        penalty(static, data)
        gx_s, g_s = penalty(static, data)
        gx_d, g_d = penalty(dynamic, data)
        numpy.testing.assert_array_equal(gx_s, gx_d)
        for name in g_s:
            if check is None:
                numpy.testing.assert_array_equal(g_s[name], g_d[name], err_msg=name)
            else:
                # The second order flows both through the chain's node and through the
                # recorded functions: the same terms, possibly summed in another order.
                check(g_s[name], g_d[name], rtol=1e-5, atol=1e-6, err_msg=name)


def test_an_argument_given_twice_or_a_parameter_as_argument():
    class Pair(chainer.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.W = chainer.Parameter(numpy.full((3, 3), 0.5, numpy.float32))

        def define_by_run(self, a, b):
            return F.linear(a, self.W) * F.linear(b, self.W)

    static_cls, dynamic_cls = static_and_dynamic(Pair)
    static, dynamic = static_cls(), dynamic_cls()
    data = numpy.arange(9, dtype=numpy.float32).reshape(3, 3)
    static(chainer.Variable(data), chainer.Variable(data))
    for same in (True, False):
        results = []
        for model in (static, dynamic):
            model.cleargrads()
            a = chainer.Variable(data.copy())
            y = model(a, a if same else model.W)
            F.sum(y).backward()
            results.append((a.grad, _grads(model)))
            if model is static:
                assert y.creator.label == "_ * _"  # define-by-run's graph
        numpy.testing.assert_array_equal(results[0][0], results[1][0])
        numpy.testing.assert_array_equal(results[0][1]["/W"], results[1][1]["/W"])


def test_static_code_taking_a_variable_builds_define_by_run_graph():
    class Logged(MLP):
        @chainer.static_code
        def log(self, h):
            self.logged = float(h.array.sum())

        def define_by_run(self, x):
            h = F.relu(F.linear(x, self.W0, self.b0))
            self.log(h)
            return F.linear(h, self.W1, self.b1)

    static_cls, _ = static_and_dynamic(Logged)
    model = static_cls()
    model(numpy.ones((2, 6), numpy.float32))
    assert "takes a variable" in model.static_schedule.fast_replay
    y = model(numpy.full((2, 6), 2, numpy.float32))
    assert y.creator.label == "LinearFunction"
    h = numpy.maximum(numpy.full((2, 6), 2, numpy.float32) @ model.W0.array.T + model.b0.array, 0)
    assert model.logged == pytest.approx(float(h.sum()), rel=1e-6)


def test_static_code_on_arrays_keeps_the_fast_path():
    class Scaled(MLP):
        @chainer.static_code
        def scale(self, a):
            return a * 2

        def define_by_run(self, x):
            return F.linear(self.scale(x), self.W0, self.b0)

    static_cls, dynamic_cls = static_and_dynamic(Scaled)
    static, dynamic = static_cls(), dynamic_cls()
    x = numpy.ones((2, 6), numpy.float32)
    static(x)
    assert static.static_schedule.fast_replay is None
    for model in (static, dynamic):
        model.cleargrads()
        F.sum(model(x)).backward()
    _assert_same_grads(static, dynamic)


def test_inputs_without_gradients_and_no_backprop():
    static_cls, dynamic_cls = static_and_dynamic(MLP)
    static = static_cls()
    x = numpy.ones((2, 6), numpy.float32)
    static(x)
    for p in static.params():
        p._requires_grad = False  # as a frozen copy would have
    y = static(x)
    assert y.creator is None and not y.requires_grad
    for p in static.params():
        p._requires_grad = True
    with chainer.no_backprop_mode():
        y = static(x)
    assert y.creator is None and y.requires_grad
    numpy.testing.assert_array_equal(y.array, MLP.define_by_run(static, x).array)


def test_the_schedule_node_cannot_be_applied():
    static_cls, _ = static_and_dynamic(MLP)
    model = static_cls()
    x = numpy.ones((2, 6), numpy.float32)
    model(x)
    node = model(x).creator
    assert isinstance(node, _replay.ScheduleNode)
    with pytest.raises(RuntimeError, match="made by a replay of chainer.static_graph"):
        node.forward((x,))


def test_functions_of_several_outputs_some_unused():
    class Split(MLP):
        def define_by_run(self, x):
            a, b, _ = F.split_axis(F.linear(x, self.W0, self.b0), 3, axis=1)  # the third gets no gradient
            return F.linear(F.concat((F.tanh(a), b * a)), self.W2[:, :6]), x

    static_cls, dynamic_cls = static_and_dynamic(Split)
    static, dynamic = static_cls(sizes=(6, 9, 8, 3)), dynamic_cls(sizes=(6, 9, 8, 3))
    data = numpy.random.default_rng(4).normal(size=(2, 6)).astype(numpy.float32)
    static(chainer.Variable(data))
    results = []
    for model in (static, dynamic):
        model.cleargrads()
        x = chainer.Variable(data.copy())
        y, same = model(x)
        assert same is x  # an argument returned as is
        assert (y.creator.label == SCHEDULE_NODE) == (model is static)
        F.sum(y * y).backward()
        results.append(x.grad)
    numpy.testing.assert_array_equal(*results)
    _assert_same_grads(static, dynamic)
