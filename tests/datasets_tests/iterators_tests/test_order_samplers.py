import numpy
import pytest

from chainer import iterators


def test_shuffle_order_sampler_with_random_state():
    sampler = iterators.ShuffleOrderSampler(numpy.random.RandomState(42))
    order = sampler(numpy.arange(8), 0)
    assert order.tolist() == numpy.random.RandomState(42).permutation(8).tolist()
    assert isinstance(sampler, iterators.OrderSampler)


def test_shuffle_order_sampler_uses_global_state_by_default():
    sampler = iterators.ShuffleOrderSampler()
    numpy.random.seed(1)
    a = sampler(numpy.arange(6), 3)
    numpy.random.seed(1)
    assert a.tolist() == numpy.random.permutation(6).tolist()


def test_errors():
    with pytest.raises(TypeError, match="random_state must be a numpy.random.RandomState"):
        iterators.ShuffleOrderSampler(42)
    with pytest.raises(NotImplementedError):
        iterators.OrderSampler()(numpy.arange(2), 0)
