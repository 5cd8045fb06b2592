"""MultiprocessParallelUpdater: a clear error naming what is missing."""

import importlib.util

import pytest
from _training_testlib import Regression

import chainer
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
