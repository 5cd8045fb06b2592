"""MultiprocessParallelUpdater: a clear error naming what is missing."""

import importlib.util

import pytest
from _training_testlib import Regression

import chainer
from chainer.testing import attr
from chainer.training import updaters


def make(devices, n_iterators=2):
    optimizer = chainer.optimizers.SGD().setup(Regression())
    iterators = [chainer.iterators.SerialIterator(list(range(4)), 2) for _ in range(n_iterators)]
    return updaters.MultiprocessParallelUpdater(iterators, optimizer, devices=devices)


@pytest.mark.skipif(importlib.util.find_spec("cupy") is not None, reason="CuPy is installed")
def test_without_cupy():
    assert updaters.MultiprocessParallelUpdater.available() is False
    with pytest.raises(RuntimeError, match="MultiprocessParallelUpdater cannot be used: it needs CuPy"):
        make([0, 1])


def test_argument_errors():
    with pytest.raises(ValueError, match="devices .* is required"):
        make(None)
    with pytest.raises(ValueError, match="one iterator per device"):
        make([0, 1, 2])
    with pytest.raises(KeyError, match="'main' entry"):
        make({"a": 0, "b": 1})


# -- packing the parameters and gradients into one flat array ---------------------------


def test_size_num_grads_counts_initialized_parameters():
    from chainer.training.updaters import multiprocess_parallel_updater as mpu

    model = Regression(n_in=3, n_out=2)
    assert mpu.size_num_grads(model) == 2 * 3 + 2
    lazy = chainer.Link()
    with lazy.init_scope():
        lazy.p = chainer.Parameter(None)
    assert mpu.size_num_grads(lazy) == 0


def test_gather_refuses_cpu_parameters():
    from chainer.training.updaters import multiprocess_parallel_updater as mpu

    model = Regression()
    with pytest.raises(RuntimeError, match="gather_params works only on GPU"):
        mpu.gather_params(model)
    with pytest.raises(RuntimeError, match="gather_grads works only on GPU"):
        mpu.gather_grads(model)


def test_scatter_fills_the_parameters_in_order():
    import numpy

    from chainer.training.updaters import multiprocess_parallel_updater as mpu

    model = Regression(n_in=3, n_out=2)
    flat = numpy.arange(8, dtype=numpy.float64)
    mpu.scatter_params(model, flat)
    mpu.scatter_grads(model, flat * 10)
    by_name = dict(model.namedparams())
    # Regression's parameters in the order of params(): W (2, 3), then b (2,).
    numpy.testing.assert_array_equal(by_name["/W"].array, numpy.arange(6).reshape(2, 3))
    numpy.testing.assert_array_equal(by_name["/b"].array, [6, 7])
    numpy.testing.assert_array_equal(by_name["/b"].grad, [60, 70])
    assert by_name["/W"].array.dtype == numpy.float32
    with pytest.raises(ValueError, match="the link has 8 parameter elements"):
        mpu.scatter_params(model, flat[:5])


@attr.gpu
def test_gather_and_scatter_on_gpu():
    import cupy
    import numpy

    from chainer.training.updaters import multiprocess_parallel_updater as mpu

    src, dst = Regression(seed=0), Regression(seed=1)
    src.to_device("@cupy:0")
    dst.to_device("@cupy:0")
    for param in src.params():
        param.grad = param.array * 3
    flat = mpu.gather_params(src)
    assert isinstance(flat, cupy.ndarray) and flat.shape == (8,)
    expected = numpy.concatenate([p.array.get().ravel() for p in src.params()])
    numpy.testing.assert_array_equal(flat.get(), expected)
    mpu.scatter_params(dst, flat)
    mpu.scatter_grads(dst, mpu.gather_grads(src))
    for a, b in zip(src.params(), dst.params()):
        numpy.testing.assert_array_equal(a.array.get(), b.array.get())
        numpy.testing.assert_array_equal(b.grad.get(), a.array.get() * 3)
