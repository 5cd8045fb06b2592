import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import utils
from chainer.testing import attr


@pytest.mark.parametrize("probs", [[0.5, 0.0, 1.5, 2.0], [1.0], [3.0, 1.0, 1.0, 0.0, 5.0, 0.1]])
def test_draws_follow_the_distribution(probs):
    numpy.random.seed(0)
    sampler = utils.WalkerAlias(probs)
    draws = sampler.sample((200000,))
    assert draws.dtype == numpy.int32
    expected = numpy.asarray(probs) / numpy.sum(probs)
    frequencies = numpy.bincount(draws, minlength=len(probs)) / draws.size
    numpy.testing.assert_allclose(frequencies, expected, atol=5e-3)
    assert (frequencies[expected == 0] == 0).all()


def test_sample_keeps_the_shape_and_feeds_negative_sampling():
    sampler = utils.WalkerAlias(numpy.ones(5))
    assert sampler.sample((2, 3)).shape == (2, 3)
    x = numpy.zeros((2, 4), numpy.float32)
    W = numpy.zeros((5, 4), numpy.float32)
    loss = F.negative_sampling(x, numpy.array([0, 1], numpy.int32), W, sampler.sample, 3)
    numpy.testing.assert_allclose(loss.array, 8 * numpy.log(2), rtol=1e-6)


def test_moves_to_the_cpu_and_reports_its_device():
    sampler = utils.WalkerAlias([1.0, 2.0])
    assert sampler.use_gpu is False
    with pytest.warns(DeprecationWarning, match="to_cpu is deprecated"):
        assert sampler.to_cpu() is sampler
    assert sampler.device == chainer.get_device("@numpy")
    assert sampler.use_gpu is False
    sampler.to_device("@numpy")
    assert sampler.use_gpu is False
    with pytest.raises(AttributeError):
        sampler.use_gpu = True  # follows the device; to_gpu() / to_cpu() change it


def test_use_gpu_is_false_on_a_third_party_device():
    import chainer_plugin_fakedev as fakedev

    from chainer import plugins

    sampler = utils.WalkerAlias([1.0, 2.0, 3.0])
    plugins.register(fakedev, name="walker-alias-tests-fakedev")
    try:
        sampler.to_device("@fakedev:1")
        assert sampler.device == chainer.get_device("@fakedev:1")
        assert sampler.use_gpu is False
        assert sampler.sample((4,)).shape == (4,)
    finally:
        sampler.to_device("@numpy")
        plugins.unregister(fakedev)


@attr.gpu
def test_use_gpu_follows_to_gpu_and_to_cpu():
    import cupy

    sampler = utils.WalkerAlias([1.0, 0.0, 3.0])
    with pytest.warns(DeprecationWarning, match="to_gpu is deprecated"):
        assert sampler.to_gpu() is sampler
    assert sampler.use_gpu is True
    assert isinstance(sampler.threshold, cupy.ndarray) and isinstance(sampler.values, cupy.ndarray)
    draws = sampler.sample((1000,))
    assert isinstance(draws, cupy.ndarray) and not (draws == 1).any()
    assert isinstance(sampler.sample_gpu((3,)), cupy.ndarray)
    with pytest.warns(DeprecationWarning, match="to_cpu is deprecated"):
        sampler.to_cpu()
    assert sampler.use_gpu is False and isinstance(sampler.threshold, numpy.ndarray)
    sampler.to_device("@cupy:0")
    assert sampler.use_gpu is True


@pytest.mark.parametrize("probs", [[], [[1.0]], [1.0, -1.0], [0.0, 0.0], [numpy.nan]])
def test_rejects_invalid_probabilities(probs):
    with pytest.raises(ValueError, match="WalkerAlias: probs must"):
        utils.WalkerAlias(probs)
