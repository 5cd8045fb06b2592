"""The multi-node optimizer: a 2-process data-parallel step equals a single-process step
on the concatenated batch."""

from __future__ import annotations

import numpy
import pytest

import chainer
import chainermn

DATA_PARALLEL = """
import chainer.links as L
def make_model():
    numpy.random.seed(0)  # same initial parameters everywhere... except we perturb below
    return L.Classifier(chainer.Sequential(L.Linear(4, 5), F.relu, L.Linear(5, 3)))
rng = numpy.random.RandomState(1)
x_all = rng.randn(8, 4).astype(numpy.float32)
t_all = rng.randint(0, 3, 8).astype(numpy.int32)
for opt_cls in (chainer.optimizers.SGD, chainer.optimizers.Adam):
    reference = make_model()
    ref_opt = opt_cls()
    ref_opt.setup(reference)
    model = make_model()
    if rank != 0:
        for p in model.params():
            p.array += 1.0  # the first update must copy rank 0's parameters
    opt = chainermn.create_multi_node_optimizer(opt_cls(), comm)
    assert opt.setup(model) is opt
    share = slice(4 * rank, 4 * rank + 4)
    opt.update(model, x_all[share], t_all[share])  # first call: broadcast only
    for (_, p), (_, q) in zip(sorted(model.namedparams()), sorted(reference.namedparams())):
        assert_array_equal(p.array, q.array)
    for step in range(2):
        opt.update(model, x_all[share], t_all[share])
        ref_opt.update(reference, x_all, t_all)  # the mean loss over the whole batch
        for (name, p), (_, q) in zip(sorted(model.namedparams()), sorted(reference.namedparams())):
            assert_allclose(p.array, q.array, rtol=1e-5, atol=1e-6, err_msg=f"{opt_cls.__name__} {name} step {step}")
    assert opt.t == 2 and opt.hyperparam is opt.actual_optimizer.hyperparam
expect_error(ValueError, "double_buffering=True needs the 'pure_nccl'",
             chainermn.create_multi_node_optimizer, chainer.optimizers.SGD(), comm, double_buffering=True)
print("ok", rank)
"""


@pytest.mark.mpi
def test_data_parallel_step_equals_single_process_step(run_mpi):
    out = run_mpi(2, DATA_PARALLEL)
    assert out.count("ok") == 2


def test_argument_errors():
    comm = chainermn.create_communicator("naive")
    with pytest.raises(TypeError, match="actual_optimizer must be a chainer.Optimizer"):
        chainermn.create_multi_node_optimizer(object(), comm)
    with pytest.raises(TypeError, match="ChainerMN communicator"):
        chainermn.create_multi_node_optimizer(chainer.optimizers.SGD(), object())
    opt = chainermn.create_multi_node_optimizer(chainer.optimizers.SGD(lr=0.5), comm)
    with pytest.raises(RuntimeError, match="call setup"):
        opt.update()
    opt.lr = 0.25
    assert opt.actual_optimizer.lr == 0.25


def test_single_process_first_update_only_synchronizes():
    comm = chainermn.create_communicator("naive")
    link = chainer.Link()
    with link.init_scope():
        link.w = chainer.Parameter(numpy.array([1.0, 2.0], numpy.float32))
    opt = chainermn.create_multi_node_optimizer(chainer.optimizers.SGD(lr=0.5), comm).setup(link)
    link.w.grad = numpy.array([1.0, 1.0], numpy.float32)
    opt.update()
    numpy.testing.assert_array_equal(link.w.array, [1.0, 2.0])
    link.w.grad = numpy.array([1.0, 1.0], numpy.float32)
    opt.update()
    numpy.testing.assert_array_equal(link.w.array, [0.5, 1.5])
