"""L.BlackOut and L.NegativeSampling: sampling from the counts, losses against NumPy formulas."""

import numpy
import pytest

import chainer
import chainer.links as L
from chainer import gradient_check


class FixedSampler:
    """Stands in for the link's WalkerAlias: returns given samples, records the shapes asked for."""

    def __init__(self, samples):
        self.samples = samples
        self.shapes = []

    def sample(self, shape):
        self.shapes.append(shape)
        return self.samples

    def device_resident_accept(self, visitor):
        self.samples = visitor.visit_array(self.samples)


def log_sigmoid(v):
    return -numpy.logaddexp(0, -v)


def black_out_reference(W, x, t, samples):
    """-(log p_t + Σ_s log(1 - p_s)), p the softmax over {t} ∪ samples of W x; mean over the batch."""
    losses = []
    for b in range(len(x)):
        logits = numpy.concatenate([[W[t[b]] @ x[b]], W[samples[b]] @ x[b]])
        log_p = logits - numpy.logaddexp.reduce(logits)
        losses.append(-(log_p[0] + numpy.log1p(-numpy.exp(log_p[1:])).sum()))
    return numpy.mean(losses)


def negative_sampling_reference(W, x, t, negatives):
    """-log σ(w_t·x) - Σ_s log σ(-w_s·x) per example (0 where t == -1)."""
    losses = []
    for b in range(len(x)):
        if t[b] == -1:
            losses.append(0.0)
            continue
        losses.append(-log_sigmoid(W[t[b]] @ x[b]) - log_sigmoid(-(W[negatives[b]] @ x[b])).sum())
    return numpy.array(losses)


def test_black_out_parameters_and_sampler():
    link = L.BlackOut(3, [0, 4, 0, 1], 5)
    assert link.W.shape == (4, 3) and link.sample_size == 5
    assert numpy.isfinite(link.W.array).all() and link.W.array.std() > 0
    draws = link.sampler.sample((20000,))
    assert set(numpy.unique(draws)) == {1, 3}
    assert abs((draws == 1).mean() - 0.8) < 0.02


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_black_out_forward(dtype):
    with chainer.using_config("dtype", dtype):
        link = L.BlackOut(3, [1, 2, 3, 4, 5], 2)
    samples = numpy.array([[1, 2], [3, 4], [0, 0]], numpy.int32)
    link.sampler = FixedSampler(samples)
    x = numpy.random.uniform(-1, 1, (3, 3)).astype(dtype)
    t = numpy.array([0, 2, 4], numpy.int32)
    loss = link(x, t)
    assert link.sampler.shapes == [(3, 2)]
    assert loss.shape == () and loss.dtype == dtype
    numpy.testing.assert_allclose(loss.array, black_out_reference(link.W.array, x, t, samples), rtol=1e-5)
    with chainer.using_config("dtype", numpy.float64):
        link64 = L.BlackOut(3, [1, 2, 3, 4, 5], 2)
    link64.sampler = FixedSampler(samples)
    gradient_check.check_backward(
        lambda x: link64(x, t), x.astype(numpy.float64), None, params=(link64.W,), atol=1e-6, rtol=1e-5
    )


def test_black_out_sample_data_replaces_the_sampler():
    # sample_data set on the link is used instead of drawing (as in Chainer 7).
    link = L.BlackOut(3, [1, 2, 3, 4, 5], 2)
    samples = numpy.array([[1, 2], [3, 4], [0, 0]], numpy.int32)
    link.sample_data = samples
    x = numpy.random.uniform(-1, 1, (3, 3)).astype(numpy.float32)
    t = numpy.array([0, 2, 4], numpy.int32)
    first, second = link(x, t), link(x, t)
    expected = black_out_reference(link.W.array, x, t, samples)
    numpy.testing.assert_allclose(first.array, expected, rtol=1e-5)
    numpy.testing.assert_allclose(second.array, expected, rtol=1e-5)


def test_negative_sampling_parameters_and_sampler():
    link = L.NegativeSampling(3, [1, 0, 16], 4, power=0.5)
    assert link.W.shape == (3, 3) and link.W.dtype == numpy.float32
    numpy.testing.assert_array_equal(link.W.array, numpy.zeros((3, 3)))
    draws = link.sampler.sample((20000,))
    # counts ** 0.5 = 1, 0, 4: probabilities 0.2, 0, 0.8.
    assert set(numpy.unique(draws)) == {0, 2}
    assert abs((draws == 2).mean() - 0.8) < 0.02
    assert L.NegativeSampling(3, [1, 2], 1, dtype=numpy.float64).W.dtype == numpy.float64


@pytest.mark.parametrize("reduce", ["sum", "no"])
def test_negative_sampling_forward_with_returned_samples(reduce):
    link = L.NegativeSampling(3, [1, 2, 3, 4, 5], 2)
    link.W.array[...] = numpy.random.uniform(-1, 1, link.W.shape)
    x = numpy.random.uniform(-1, 1, (4, 3)).astype(numpy.float32)
    t = numpy.array([0, 2, -1, 4], numpy.int32)
    loss, samples = link(x, t, reduce=reduce, return_samples=True)
    assert samples.shape == (4, 3)
    numpy.testing.assert_array_equal(samples[[0, 1, 3], 0], t[[0, 1, 3]])
    expected = negative_sampling_reference(link.W.array, x, t, samples[:, 1:])
    numpy.testing.assert_allclose(loss.array, expected.sum() if reduce == "sum" else expected, rtol=1e-5, atol=1e-6)


def test_negative_sampling_gradient():
    with chainer.using_config("dtype", numpy.float64):
        link = L.NegativeSampling(3, [1, 2, 3, 4, 5], 2)
    link.W.array[...] = numpy.random.uniform(-1, 1, link.W.shape)
    # The function asks for sample_size + 1 columns and puts t in the first.
    link.sampler = FixedSampler(numpy.array([[9, 1, 3], [9, 4, 4], [9, 0, 2]], numpy.int32))
    x = numpy.random.uniform(-1, 1, (3, 3))
    t = numpy.array([0, 2, 4], numpy.int32)
    gradient_check.check_backward(lambda x: link(x, t), x, None, params=(link.W,), atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("cls", [L.BlackOut, L.NegativeSampling])
def test_npz_device_copy(cls, link_checks, tmp_path):
    link = cls(3, [1, 2, 3], 2)
    link.W.array[...] = numpy.random.randn(3, 3)
    link_checks.npz_round_trip(link, cls(3, [1, 2, 3], 2), ["W"], tmp_path)
    link_checks.device_round_trip(link, None)
    assert chainer.backend.get_device_from_array(link.sampler.threshold) == chainer.get_device("@numpy")
    import chainer_plugin_fakedev as fakedev

    from chainer import plugins

    plugins.register(fakedev, name="sampler-move")
    try:
        link.to_device("@fakedev:1")
        assert chainer.backend.get_device_from_array(link.sampler.threshold).name == "@fakedev:1"
    finally:
        plugins.unregister(fakedev)
    if cls is L.BlackOut:
        link_checks.copy_and_repeat(cls(3, [1, 2, 3], 2), random_params=["/W"])
    else:
        link_checks.copy_and_repeat(cls(3, [1, 2, 3], 2))


@pytest.mark.parametrize("cls", [L.BlackOut, L.NegativeSampling])
def test_bad_arguments(cls):
    with pytest.raises(ValueError, match=f"{cls.__name__}: sample_size must be a positive int, got 0"):
        cls(3, [1, 2], 0)
    with pytest.raises(ValueError, match=f"{cls.__name__}: in_size must be a positive int, got None"):
        cls(None, [1, 2], 1)
    with pytest.raises(ValueError, match="WalkerAlias"):
        cls(3, [0, 0], 1)
