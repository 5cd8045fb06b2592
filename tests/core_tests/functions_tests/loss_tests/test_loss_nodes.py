"""The loss nodes of 7.8.1's module tree compute their functions, with gradients of
every order (they are compositions of differentiable functions)."""

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import gradient_check
from chainer.functions.loss import (
    contrastive,
    cross_covariance,
    decov,
    discriminative_loss,
    hinge,
    negative_sampling,
    squared_error,
    triplet,
)


def _u(*shape):
    return numpy.random.uniform(-1, 1, shape)


CASES = [
    (hinge.Hinge("L2", "no"), lambda x, t: F.hinge(x, t, "L2", "no"), (_u(4, 3), numpy.array([0, 2, 1, 1], "i"))),
    (
        contrastive.Contrastive(1.5),
        lambda a, b, y: F.contrastive(a, b, y, 1.5),
        (_u(4, 3), _u(4, 3), numpy.array([0, 1, 1, 0], "i")),
    ),
    (triplet.Triplet(0.3, "no"), lambda a, p, n: F.triplet(a, p, n, 0.3, "no"), (_u(4, 3), _u(4, 3), _u(4, 3))),
    (cross_covariance.CrossCovariance(), F.cross_covariance, (_u(5, 3), _u(5, 2))),
    (decov.DeCov("no"), lambda h: F.decov(h, "no"), (_u(5, 3),)),
]


@pytest.mark.parametrize("node, function, inputs", CASES)
def test_loss_node_is_its_function(node, function, inputs):
    (y,) = node.apply(inputs)
    numpy.testing.assert_allclose(y.array, function(*inputs).array, rtol=1e-12)
    float_inputs = [i for i, a in enumerate(inputs) if a.dtype.kind == "f"]

    def f(*floats):
        args = list(inputs)
        for i, v in zip(float_inputs, floats):
            args[i] = v
        return node.apply(tuple(args))

    floats = tuple(inputs[i] for i in float_inputs)
    gy = _u(*y.shape)
    gradient_check.check_backward(f, floats, gy, atol=1e-6, rtol=1e-5)
    gradient_check.check_double_backward(f, floats, gy, tuple(_u(*a.shape) for a in floats), atol=1e-6, rtol=1e-5)


def test_discriminative_loss_node_is_called_like_chainer_s_class():
    embeddings = _u(2, 3, 4, 5)
    labels = numpy.random.randint(0, 3, (2, 4, 5)).astype(numpy.int32)
    loss = discriminative_loss.DiscriminativeMarginBasedClusteringLoss(0.5, 1.5, 3, 2)
    outputs = loss(embeddings, labels)
    expected = F.discriminative_margin_based_clustering_loss(embeddings, labels, 0.5, 1.5, 3, 2)
    assert len(outputs) == 3
    for got, want in zip(outputs, expected):
        numpy.testing.assert_allclose(got.array, want.array, rtol=1e-12)


def test_negative_sampling_node_keeps_its_samples():
    x, W = chainer.Variable(_u(4, 3)), chainer.Variable(_u(6, 3))
    t = numpy.array([0, 5, -1, 2], numpy.int32)
    node = negative_sampling.NegativeSamplingFunction(lambda shape: numpy.random.randint(0, 6, shape), 3, "no")
    (loss,) = node.apply((x, t, W))
    samples = node.samples
    assert samples.shape == (4, 4)
    numpy.testing.assert_array_equal(samples[:, 0], t)
    # The loss of example b: softplus(-w_t . x_b) + sum over samples of softplus(w_s . x_b).
    softplus = lambda v: numpy.log1p(numpy.exp(v))
    for b in range(4):
        if t[b] == -1:
            assert loss.array[b] == 0
            continue
        scores = W.array[samples[b]] @ x.array[b]
        numpy.testing.assert_allclose(loss.array[b], softplus(-scores[0]) + softplus(scores[1:]).sum(), rtol=1e-10)
    gloss = _u(4)
    gx, gW = chainer.grad([loss], [x, W], [gloss])
    grad_node = negative_sampling.NegativeSamplingFunctionGrad(node)
    got_gx, got_gW = grad_node.apply((x, t, W, gloss))
    numpy.testing.assert_allclose(got_gx.array, gx.array, rtol=1e-10)
    numpy.testing.assert_allclose(got_gW.array, gW.array, rtol=1e-10)
    fresh = negative_sampling.NegativeSamplingFunction(lambda shape: numpy.zeros(shape, "i"), 1)
    with pytest.raises(RuntimeError, match="has not run its forward pass yet"):
        negative_sampling.NegativeSamplingFunctionGrad(fresh)


def test_squared_difference_of_the_squared_error_module():
    assert squared_error.squared_difference is F.squared_difference
