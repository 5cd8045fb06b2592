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


# The table and the draws of Chainer 7.8.1, so that a seeded program gets the same integers
# (checked against Chainer 7.8.1 run as a black box on 300 random weight vectors, see
# tests/integration_tests/test_chainer7_random_streams.py). Worked by hand: weights scaled
# to mean 1 and sorted; column i holds the i-th entry with probability its level, and the
# next entry above 1 as its alias, which gives up what column i lacks.
@pytest.mark.parametrize(
    "probs, threshold, values",
    [
        # levels .3 1.5 1.2 -> sorted 0 (.3), 2 (1.2), 1 (1.5): column 0 = (0, 2), leaving 2 at
        # .5; column 1 = (2, 1), leaving 1 at 1.0; column 2 = (1, none).
        ([0.1, 0.5, 0.4], [0.3, 0.5, 1.0], [0, 2, 2, 1, 1, 0]),
        # levels .5 1.0000000298 (2/6 rounded to float32, times 3) 1.5: 1 is above 1.
        ([1.0, 2.0, 3.0], [0.5, 0.5000000298, 1.0], [0, 1, 1, 2, 2, 0]),
        # levels .5 .5 .5 1 1 1 1.5 2: the entries at exactly 1 are never aliases.
        ([2, 2, 3, 1, 1, 2, 4, 1], [0.5, 0.5, 0.5, 1, 1, 1, 1, 1], [3, 2, 4, 6, 7, 6, 0, 0, 1, 0, 5, 0, 2, 0, 6, 0]),
    ],
)
def test_table_of_chainer_7_8_1(probs, threshold, values):
    sampler = utils.WalkerAlias(probs)
    assert sampler.threshold.dtype == numpy.float32 and sampler.values.dtype == numpy.int32
    numpy.testing.assert_array_equal(sampler.threshold, numpy.array(threshold, numpy.float32))
    numpy.testing.assert_array_equal(sampler.values, values)


def test_a_draw_is_one_uniform_scaled_to_a_column_and_its_fraction():
    sampler = utils.WalkerAlias([0.1, 0.5, 0.4])
    numpy.random.seed(0)
    draws = sampler.sample((4, 50))
    numpy.random.seed(0)
    position = numpy.random.random_sample((4, 50)) * 3
    column = position.astype(numpy.int32)
    first, alias = numpy.array([0, 2, 1]), numpy.array([2, 1, 0])
    expected = numpy.where(
        position - column < numpy.array([0.3, 0.5, 1.0], numpy.float32)[column], first[column], alias[column]
    )
    numpy.testing.assert_array_equal(draws, expected)
    # One uniform per draw: the generator is where 200 uniforms leave it.
    numpy.random.seed(0)
    numpy.random.random_sample(200)
    after = numpy.random.rand()
    numpy.random.seed(0)
    sampler.sample((4, 50))
    assert numpy.random.rand() == after
