"""chainer.static_graph on the GPU: replays from CUDA Graphs (graph_optimizations/_cuda_graph.py).

The reference is the same model run define-by-run on the GPU (the same functions, whose
kernels compute the same bits) and, for the values themselves, NumPy on the CPU. The
tests also check that the graphs were really used (captured instances), that what
cannot be captured falls back with a warning, and the buffer rules: outputs are the
caller's own arrays, the backward of a call whose buffers were reused raises.
"""

import os

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import optimizers
from chainer.backends import cuda
from chainer.graph_optimizations import _cuda_graph


@pytest.fixture
def gpu_only():
    if not cuda.available:
        pytest.skip("needs a GPU: " + str(cuda._unavailable_reason()))
    import cupy

    return cupy


class MLP(chainer.Chain):
    def __init__(self, sizes=(20, 30, 30, 5), seed=0, dropout=False):
        super().__init__()
        rng = numpy.random.default_rng(seed)
        self.n_layers = len(sizes) - 1
        self.dropout = dropout
        with self.init_scope():
            for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
                setattr(self, f"W{i}", chainer.Parameter(rng.normal(0, n_in**-0.5, (n_out, n_in)).astype("f")))
                setattr(self, f"b{i}", chainer.Parameter(rng.normal(0, 0.1, n_out).astype("f")))

    def define_by_run(self, x):
        h = x
        for i in range(self.n_layers):
            h = F.linear(h, getattr(self, f"W{i}"), getattr(self, f"b{i}"))
            if i < self.n_layers - 1:
                h = F.relu(h)
                if self.dropout:
                    h = F.dropout(h, 0.5)
        return h

    forward = define_by_run


class StaticMLP(MLP):
    forward = chainer.static_graph(MLP.define_by_run)


def _batches(xp, n, batch=8, sizes=(20, 30, 30, 5)):
    rng = numpy.random.default_rng(42)
    return [
        (
            xp.asarray(rng.standard_normal((batch, sizes[0])).astype("f")),
            xp.asarray(rng.integers(0, sizes[-1], batch).astype(numpy.int32)),
        )
        for _ in range(n)
    ]


def _train(model, batches, cleargrads=True):
    opt = optimizers.MomentumSGD(lr=0.05).setup(model)
    losses = []
    for x, t in batches:
        if cleargrads:
            model.cleargrads()
        else:  # what the deprecated zerograds does: the gradients stay, zeroed in place
            for p in model.params():
                if p.grad is None:
                    p.grad = p.array * 0
                else:
                    p.grad.fill(0)
        y = model(x)
        loss = F.mean(F.square(y - F.broadcast_to(F.expand_dims(t.astype("f"), 1), y.shape)))
        loss.backward()
        opt.update()
        losses.append(float(loss.array))
    return losses


def _graphs(model):
    (schedule,) = [s for s in model.schedule_manager.schedules.values() if s != "define-by-run"]
    return schedule


def test_numpy_schedules_do_not_use_cuda_graphs():
    model = StaticMLP()
    for x, _t in _batches(numpy, 3):
        model(x)
    schedule = _graphs(model)
    assert schedule._cuda_graphs is False
    assert schedule.cuda_graph_reason == "not every array is a CuPy array"


@pytest.mark.gpu
@pytest.mark.parametrize("cleargrads", [True, False])
def test_training_matches_define_by_run_bit_for_bit(gpu_only, cleargrads):
    cupy = gpu_only
    batches = _batches(cupy, 6)
    dynamic = MLP()
    static = StaticMLP()
    dynamic.to_device("@cupy:0")
    static.to_device("@cupy:0")
    losses_dynamic = _train(dynamic, batches, cleargrads)
    losses_static = _train(static, batches, cleargrads)
    assert losses_static == losses_dynamic
    for (name, p), (_, q) in zip(sorted(dynamic.namedparams()), sorted(static.namedparams())):
        assert cupy.array_equal(p.array, q.array), name
        assert cupy.array_equal(p.grad, q.grad), name
    schedule = _graphs(static)
    assert isinstance(schedule._cuda_graphs, _cuda_graph.Graphs), schedule.cuda_graph_reason
    assert len(schedule._cuda_graphs.instances) == 1
    assert schedule._cuda_graphs.instances[0].backward_graphs
    # And the values themselves against NumPy on the CPU.
    cpu = MLP()
    losses_cpu = _train(cpu, [(cupy.asnumpy(x), cupy.asnumpy(t)) for x, t in batches], cleargrads)
    numpy.testing.assert_allclose(losses_static, losses_cpu, rtol=1e-5)


@pytest.mark.gpu
def test_outputs_are_the_callers_own_arrays(gpu_only):
    cupy = gpu_only
    model = StaticMLP()
    model.to_device("@cupy:0")
    batches = _batches(cupy, 5)
    outs = []
    with chainer.no_backprop_mode():
        for x, _ in batches:
            outs.append(model(x).array)
    reference = MLP()
    reference.to_device("@cupy:0")
    with chainer.no_backprop_mode():
        for out, (x, _) in zip(outs, batches):
            assert cupy.array_equal(out, reference(x).array)
    assert isinstance(_graphs(model)._cuda_graphs, _cuda_graph.Graphs)


@pytest.mark.gpu
def test_two_calls_before_backward_use_two_instances(gpu_only):
    cupy = gpu_only
    model = StaticMLP()
    reference = MLP()
    model.to_device("@cupy:0")
    reference.to_device("@cupy:0")
    batches = _batches(cupy, 8)
    for k in range(0, 8, 2):
        for m in (model, reference):
            m.cleargrads()
            loss = F.sum(m(batches[k][0])) + F.sum(F.square(m(batches[k + 1][0])))
            loss.backward()
        for (name, p), (_, q) in zip(sorted(reference.namedparams()), sorted(model.namedparams())):
            assert cupy.array_equal(p.grad, q.grad), (k, name)
    assert len(_graphs(model)._cuda_graphs.instances) == 2


@pytest.mark.gpu
def test_backward_after_the_buffers_were_reused_raises(gpu_only):
    cupy = gpu_only
    model = StaticMLP()
    model.to_device("@cupy:0")
    (x, _), *_ = _batches(cupy, 1)
    for _ in range(3):
        model.cleargrads()
        F.sum(model(x)).backward()
    first = F.sum(model(x))
    first.backward()
    first.backward()  # a second backward before another call is fine
    model(x)  # the instance was free after the backward: this call reuses it
    with pytest.raises(RuntimeError, match="reused the memory of its activations"):
        first.backward()
    # Calls kept alive without their backward get instances of their own, up to the limit.
    kept = [F.sum(model(x)) for _ in range(_cuda_graph.MAX_INSTANCES + 2)]
    assert len(_graphs(model)._cuda_graphs.instances) == _cuda_graph.MAX_INSTANCES
    for loss in kept:
        model.cleargrads()
        loss.backward()
        assert model.W0.grad is not None


@pytest.mark.gpu
def test_input_gradients_are_copies(gpu_only):
    cupy = gpu_only
    model = StaticMLP()
    reference = MLP()
    model.to_device("@cupy:0")
    reference.to_device("@cupy:0")
    grads = []
    for x, _ in _batches(cupy, 4):
        xs = chainer.Variable(x.copy()), chainer.Variable(x.copy())
        for m, v in zip((model, reference), xs):
            m.cleargrads()
            F.sum(F.square(m(v))).backward()
        assert cupy.array_equal(xs[0].grad, xs[1].grad)
        grads.append((xs[0].grad, xs[1].grad.copy()))
    for mine, expected in grads:  # not overwritten by later replays
        assert cupy.array_equal(mine, expected)


@pytest.mark.gpu
def test_what_cannot_be_captured_falls_back_with_a_warning(gpu_only):
    cupy = gpu_only
    model = StaticMLP(dropout=True)
    model.to_device("@cupy:0")
    batches = _batches(cupy, 4)
    with pytest.warns(RuntimeWarning, match="without a CUDA Graph"):
        for x, _ in batches:
            model.cleargrads()
            F.sum(model(x)).backward()
    schedule = _graphs(model)
    assert schedule._cuda_graphs is False
    assert "could not be captured" in schedule.cuda_graph_reason
    # Still training: the next calls replay uncaptured without a warning.
    for x, _ in batches:
        model.cleargrads()
        F.sum(model(x)).backward()
        assert model.W0.grad is not None


@pytest.mark.gpu
def test_environment_switch_turns_graphs_off(gpu_only, monkeypatch):
    cupy = gpu_only
    monkeypatch.setenv("CHAINER_CUDA_GRAPH", "0")
    model = StaticMLP()
    model.to_device("@cupy:0")
    for x, _ in _batches(cupy, 3):
        model(x)
    assert _graphs(model)._cuda_graphs is False
    assert "CHAINER_CUDA_GRAPH" in _graphs(model).cuda_graph_reason
    assert os.environ["CHAINER_CUDA_GRAPH"] == "0"
