"""L.Inception: four branches (1x1; 1x1-3x3; 1x1-5x5; 3x3 max pool-1x1) concatenated
along the channels, through ReLU."""

import numpy as np
import pytest

import chainer
import chainer.links as L
from chainer import gradient_check, initializers


def _reference(layer, x, ref):
    def conv(link, h, pad=0):
        return ref.conv(h, link.W.array, link.b.array, 1, pad)

    out1 = conv(layer.conv1, x)
    out3 = conv(layer.conv3, ref.relu(conv(layer.proj3, x)), 1)
    out5 = conv(layer.conv5, ref.relu(conv(layer.proj5, x)), 2)
    pool = conv(layer.projp, ref.max_pool2d(x, 3, 1, 1))
    return ref.relu(np.concatenate([out1, out3, out5, pool], axis=1))


def test_structure():
    layer = L.Inception(3, 2, 4, 5, 1, 2, 3)
    shapes = {name: link.W.shape for name, link in layer.namedlinks(skipself=True)}
    assert shapes == {
        "/conv1": (2, 3, 1, 1),
        "/proj3": (4, 3, 1, 1),
        "/conv3": (5, 4, 3, 3),
        "/proj5": (1, 3, 1, 1),
        "/conv5": (2, 1, 5, 5),
        "/projp": (3, 3, 1, 1),
    }


@pytest.mark.parametrize("dtype, tol", [(np.float32, 1e-5), (np.float64, 1e-12)])
def test_forward_against_numpy(dtype, tol, ref):
    with chainer.using_config("dtype", dtype):
        layer = L.Inception(2, 1, 2, 2, 1, 2, 1, bias_init=initializers.Uniform(0.5))
    x = np.random.uniform(-1, 1, (2, 2, 4, 3)).astype(dtype)
    y = layer(x)
    assert y.shape == (2, 1 + 2 + 2 + 1, 4, 3) and y.dtype == dtype
    np.testing.assert_allclose(y.array, _reference(layer, x, ref), rtol=tol, atol=tol)


def test_gradients():
    with chainer.using_config("dtype", np.float64):
        layer = L.Inception(2, 1, 1, 1, 1, 1, 1, bias_init=initializers.Uniform(0.5))
    x = np.random.uniform(-1, 1, (1, 2, 3, 3))
    gy = np.random.uniform(-1, 1, (1, 4, 3, 3))
    gradient_check.check_backward(layer, x, gy, params=tuple(layer.params()), atol=1e-4, rtol=1e-3)


def test_initializers():
    layer = L.Inception(2, 1, 1, 1, 1, 1, 1, conv_init=0.5, bias_init=1.0)
    for link in layer.children():
        np.testing.assert_array_equal(link.W.array, 0.5)
        np.testing.assert_array_equal(link.b.array, 1.0)


def test_bad_arguments():
    with pytest.raises(ValueError, match="Inception: out5 must be a positive int, got 0"):
        L.Inception(2, 1, 1, 1, 1, 0, 1)
