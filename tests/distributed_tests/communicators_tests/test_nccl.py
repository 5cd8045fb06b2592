"""The NCCL communicators in one process on one GPU (NCCL refuses two processes on the
same GPU, so the multi-process exchange needs a machine with several)."""

from __future__ import annotations

import numpy
import pytest

import chainer
import chainermn
from chainer.testing import attr
from chainermn.communicators import pure_nccl_communicator

_NCCL_MISSING = pure_nccl_communicator._nccl_missing_reason()
pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(_NCCL_MISSING is not None, reason=f"needs CuPy with NCCL and a GPU: {_NCCL_MISSING}"),
]
NAMES = ["pure_nccl", "non_cuda_aware"]


class Model(chainer.Chain):
    def __init__(self, dtype=numpy.float32):
        super().__init__()
        with self.init_scope():
            self.a = chainer.Parameter(numpy.arange(6, dtype=dtype).reshape(2, 3))
            self.b = chainer.Parameter(numpy.linspace(-1, 1, 5).astype(dtype))
            self.unused = chainer.Parameter(numpy.ones(4, dtype))


def _gpu_model(dtype=numpy.float32):
    import cupy

    model = Model(dtype)
    model.to_device("@cupy:0")
    rng = numpy.random.default_rng(0)
    model.a.grad = cupy.asarray(rng.standard_normal((2, 3)).astype(dtype))
    model.b.grad = cupy.asarray(rng.standard_normal(5).astype(dtype) / 3)
    return model


@attr.gpu
@pytest.mark.parametrize("name", NAMES)
def test_mean_of_one_process_is_the_gradient_in_place(name):
    import cupy

    comm = chainermn.create_communicator(name)
    cupy.cuda.Device(comm.intra_rank).use()
    model = _gpu_model()
    before = {k: cupy.asnumpy(p.grad) for k, p in model.namedparams() if p.grad is not None}
    grads = {k: p.grad for k, p in model.namedparams() if p.grad is not None}
    comm.multi_node_mean_grad(model)
    for key, param in model.namedparams():
        if key == "/unused":
            assert param.grad is None  # no zero_fill: left alone
            continue
        assert param.grad is grads[key]  # averaged in place
        numpy.testing.assert_array_equal(cupy.asnumpy(param.grad), before[key])


@attr.gpu
@pytest.mark.parametrize("name", NAMES)
def test_zero_fill_and_communication_dtype(name):
    import cupy

    comm = chainermn.create_communicator(name, allreduce_grad_dtype="float16")
    assert comm.allreduce_grad_dtype == numpy.float16
    model = _gpu_model()
    before = {k: cupy.asnumpy(p.grad) for k, p in model.namedparams() if p.grad is not None}
    comm.multi_node_mean_grad(model, zero_fill=True)
    for key, param in model.namedparams():
        assert param.grad.dtype == numpy.float32 and isinstance(param.grad, cupy.ndarray)
        if key == "/unused":
            numpy.testing.assert_array_equal(cupy.asnumpy(param.grad), numpy.zeros(4))
        else:
            # The gradients travelled as float16: rounded to float16, back in float32.
            expected = before[key].astype(numpy.float16).astype(numpy.float32)
            assert not numpy.array_equal(expected, before[key])
            numpy.testing.assert_array_equal(cupy.asnumpy(param.grad), expected)


@attr.gpu
@pytest.mark.parametrize("name", NAMES)
def test_float16_gradients_and_bcast_data(name):
    import cupy

    comm = chainermn.create_communicator(name)
    model = _gpu_model(numpy.float16)
    before = cupy.asnumpy(model.a.grad)
    comm.multi_node_mean_grad(model)
    assert model.a.grad.dtype == numpy.float16
    numpy.testing.assert_array_equal(cupy.asnumpy(model.a.grad), before)
    weights = cupy.asnumpy(model.a.array)
    comm.bcast_data(model)  # through NCCL: every parameter is on the GPU
    numpy.testing.assert_array_equal(cupy.asnumpy(model.a.array), weights)


@attr.gpu
def test_wrong_inputs_are_explained():
    with pytest.raises(ValueError, match="allreduce_grad_dtype must be float16, float32 or float64"):
        chainermn.create_communicator("pure_nccl", allreduce_grad_dtype=numpy.int32)
    with pytest.raises(TypeError, match="batched_copy must be a bool"):
        chainermn.create_communicator("pure_nccl", batched_copy="yes")
    comm = chainermn.create_communicator("pure_nccl")
    model = Model()
    model.a.grad = numpy.ones((2, 3), numpy.float32)
    with pytest.raises(TypeError, match="must be on the GPU.*'naive' or 'flat'"):
        comm.multi_node_mean_grad(model)


@attr.gpu
def test_training_step_with_the_multi_node_optimizer():
    import cupy

    comm = chainermn.create_communicator("pure_nccl")
    cupy.cuda.Device(comm.intra_rank).use()
    model = Model()
    model.to_device("@cupy:0")
    a0, b0 = cupy.asnumpy(model.a.array), cupy.asnumpy(model.b.array)
    optimizer = chainermn.create_multi_node_optimizer(chainer.optimizers.SGD(lr=0.25), comm)
    optimizer.setup(model)

    def loss():
        return chainer.functions.sum(model.a) + chainer.functions.sum(model.b * model.b)

    optimizer.update(loss)  # the first update broadcasts rank 0's parameters (bcast_data)
    numpy.testing.assert_array_equal(cupy.asnumpy(model.a.array), a0)
    optimizer.update(loss)
    # Gradients 1 and 2 b (one process: the mean is the gradient), then SGD with lr 0.25.
    numpy.testing.assert_allclose(cupy.asnumpy(model.a.array), a0 - 0.25, rtol=1e-6)
    numpy.testing.assert_allclose(cupy.asnumpy(model.b.array), b0 * 0.5, rtol=1e-6)
    numpy.testing.assert_array_equal(cupy.asnumpy(model.unused.array), numpy.ones(4))


@attr.gpu
@pytest.mark.parametrize("name", NAMES)
def test_allreduce_of_gpu_arrays_goes_through_nccl(name):
    import cupy

    comm = chainermn.create_communicator(name)
    x = cupy.arange(6, dtype=cupy.float32).reshape(2, 3)
    y = comm.allreduce(x)
    assert isinstance(y, cupy.ndarray) and y is not x and y.shape == (2, 3)
    numpy.testing.assert_array_equal(cupy.asnumpy(y), numpy.arange(6).reshape(2, 3))
    # Integer arrays are summed through MPI (NCCL is used for floating point only).
    numpy.testing.assert_array_equal(cupy.asnumpy(comm.allreduce(cupy.arange(3))), numpy.arange(3))


@attr.gpu
@pytest.mark.parametrize("backend", ["nccl", "auto", "mpi"])
def test_multi_node_batch_normalization_with_nccl(backend):
    import cupy

    from chainermn.links import MultiNodeBatchNormalization

    comm = chainermn.create_communicator("pure_nccl")
    layer = MultiNodeBatchNormalization(3, comm, communication_backend=backend)
    assert layer.communication_backend == ("mpi" if backend == "mpi" else "nccl")
    layer.to_device("@cupy:0")
    x = numpy.random.default_rng(0).standard_normal((5, 3, 2)).astype(numpy.float32)
    y = layer(cupy.asarray(x))
    # One process: the global batch is the local one; the batch normalization formula.
    mean = x.mean(axis=(0, 2), keepdims=True)
    var = x.var(axis=(0, 2), keepdims=True)
    numpy.testing.assert_allclose(cupy.asnumpy(y.array), (x - mean) / numpy.sqrt(var + 2e-5), rtol=1e-4, atol=1e-5)
    chainer.functions.sum(y * y).backward()
    assert isinstance(layer.gamma.grad, cupy.ndarray)


@attr.gpu
def test_double_buffering_is_reported_as_not_implemented():
    comm = chainermn.create_communicator("pure_nccl")
    with pytest.raises(NotImplementedError, match="double_buffering=True .* is not implemented"):
        chainermn.create_multi_node_optimizer(chainer.optimizers.SGD(), comm, double_buffering=True)
