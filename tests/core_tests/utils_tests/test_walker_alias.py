import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import utils


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
    assert sampler.to_cpu() is sampler
    assert sampler.device == chainer.get_device("@numpy")
    assert not sampler.use_gpu


@pytest.mark.parametrize("probs", [[], [[1.0]], [1.0, -1.0], [0.0, 0.0], [numpy.nan]])
def test_rejects_invalid_probabilities(probs):
    with pytest.raises(ValueError, match="WalkerAlias: probs must"):
        utils.WalkerAlias(probs)
