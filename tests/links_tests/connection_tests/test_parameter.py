"""L.Parameter: a link holding one array as its parameter W."""

import numpy as np
import pytest

import chainer
import chainer.links as L
from chainer import optimizers


def test_holds_the_array_and_returns_it():
    array = np.arange(6, dtype=np.float64).reshape(2, 3)
    link = L.Parameter(array)
    assert isinstance(link.W, chainer.Parameter)
    assert link.W.array is array and link.W.dtype == np.float64
    assert link() is link.W
    assert [name for name, _ in link.namedparams()] == ["/W"]


def test_is_trained_by_an_optimizer():
    link = L.Parameter(np.array([1.0, -2.0], np.float32))
    optimizer = optimizers.SGD(lr=0.5)
    optimizer.setup(link)
    loss = chainer.functions.sum(link() * link())
    link.cleargrads()
    loss.backward()
    optimizer.update()
    np.testing.assert_allclose(link.W.array, [1.0 - 0.5 * 2.0, -2.0 + 0.5 * 4.0])


def test_bad_arguments():
    with pytest.raises(TypeError, match="chainer.links.Parameter: array must be a NumPy or CuPy array, got list"):
        L.Parameter([1.0, 2.0])
    with pytest.raises(ValueError, match="volatile argument is not supported"):
        L.Parameter(np.zeros(1, np.float32))("on")
