"""L.MLPConvolution2D: a convolution followed by 1x1 convolutions with the activation
between them (not after the last one)."""

import numpy as np
import pytest

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import gradient_check, initializers


def test_structure():
    layer = L.MLPConvolution2D(3, (4, 5, 2), 3, stride=2, pad=1)
    assert isinstance(layer, chainer.ChainList) and len(layer) == 3
    assert [conv.W.shape for conv in layer] == [(4, 3, 3, 3), (5, 4, 1, 1), (2, 5, 1, 1)]
    assert (layer[0].stride, layer[0].pad) == ((2, 2), (1, 1))
    assert (layer[1].stride, layer[1].pad) == ((1, 1), (0, 0))
    assert layer.activation is F.relu


@pytest.mark.parametrize("dtype, tol", [(np.float16, 5e-2), (np.float32, 1e-5), (np.float64, 1e-12)])
def test_forward_against_numpy(dtype, tol, ref):
    with chainer.using_config("dtype", dtype):
        layer = L.MLPConvolution2D(2, (3, 2), 2, activation=F.tanh, bias_init=initializers.Uniform(1.0))
    x = np.random.uniform(-1, 1, (2, 2, 3, 3)).astype(dtype)
    h = np.tanh(ref.conv(x, layer[0].W.array, layer[0].b.array))
    expected = ref.conv(h, layer[1].W.array, layer[1].b.array)
    y = layer(x)
    assert y.dtype == dtype
    np.testing.assert_allclose(y.array, expected, rtol=tol, atol=tol)


def test_gradients():
    with chainer.using_config("dtype", np.float64):
        layer = L.MLPConvolution2D(2, (3, 2), 2, activation=F.tanh, bias_init=initializers.Uniform(1.0))
    x = np.random.uniform(-1, 1, (1, 2, 3, 3))
    gy = np.random.uniform(-1, 1, (1, 2, 2, 2))
    gradient_check.check_backward(layer, x, gy, params=tuple(layer.params()))


def test_initializers_apply_to_every_convolution():
    layer = L.MLPConvolution2D(1, (2, 2), 1, conv_init=initializers.One(), bias_init=-1)
    for conv in layer:
        np.testing.assert_array_equal(conv.W.array, 1)
        np.testing.assert_array_equal(conv.b.array, -1)


def test_lazy_and_shifted_arguments():
    layer = L.MLPConvolution2D((3, 2), 1)
    assert layer[0].W.array is None
    assert layer(np.ones((1, 5, 2, 2), np.float32)).shape == (1, 2, 2, 2)
    assert layer[0].W.shape == (3, 5, 1, 1)


def test_bad_arguments():
    with pytest.raises(TypeError, match="wscale is not supported anymore"):
        L.MLPConvolution2D(1, (2,), 1, 1, 0, F.relu, 0.5)
    with pytest.raises(ValueError, match="wscale is not supported anymore"):
        L.MLPConvolution2D(1, (2,), 1, wscale=0.5)
    with pytest.raises(ValueError, match="MLPConvolution2D: out_channels must be a non-empty sequence"):
        L.MLPConvolution2D(1, (), 1)
    with pytest.raises(TypeError, match="MLPConvolution2D: activation must be callable"):
        L.MLPConvolution2D(1, (2,), 1, activation="relu")
