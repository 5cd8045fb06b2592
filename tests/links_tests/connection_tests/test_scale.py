"""L.Scale: a learnable (or given) scale multiplied with broadcasting, optionally
followed by a learnable bias."""

import numpy as np
import pytest

import chainer
import chainer.links as L
from chainer import gradient_check


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("bias_term", [False, True])
def test_learned_scale(dtype, bias_term):
    with chainer.using_config("dtype", dtype):
        layer = L.Scale(axis=1, W_shape=(3,), bias_term=bias_term)
    assert layer.W.shape == (3,) and layer.W.dtype == dtype
    np.testing.assert_array_equal(layer.W.array, 1)
    layer.W.array[...] = [0.5, -2.0, 3.0]
    expected_bias = 0
    if bias_term:
        assert isinstance(layer.bias, L.Bias) and layer.bias.b.shape == (3,)
        layer.bias.b.array[...] = [1.0, 0.0, -1.0]
        expected_bias = layer.bias.b.array[None, :, None]
    else:
        assert not hasattr(layer, "bias")
    x = np.random.uniform(-1, 1, (2, 3, 2)).astype(dtype)
    y = layer(x)
    np.testing.assert_allclose(y.array, x * layer.W.array[None, :, None] + expected_bias, rtol=1e-3)
    tol = {"atol": 1e-2, "rtol": 1e-2} if dtype == np.float16 else {}
    gradient_check.check_backward(layer, x, np.ones_like(x), params=tuple(layer.params()), dtype=np.float64, **tol)


def test_given_scale_with_learned_bias():
    layer = L.Scale(axis=2, bias_term=True, bias_shape=(2,))
    assert not hasattr(layer, "W") and layer.bias.b.shape == (2,)
    x = np.random.uniform(-1, 1, (2, 3, 2)).astype(np.float32)
    w = np.array([2.0, -1.0], np.float32)
    layer.bias.b.array[...] = [0.5, 0.25]
    np.testing.assert_allclose(layer(x, w).array, x * w + [0.5, 0.25], rtol=1e-6)


def test_bad_arguments():
    with pytest.raises(ValueError, match="Scale: bias_shape must be given when W_shape is None and bias_term is True"):
        L.Scale(bias_term=True)
    with pytest.raises(TypeError, match=r"Scale: takes two inputs \(x, y\) when no W_shape was given, got 1"):
        L.Scale()(np.ones((1, 2), np.float32))
    with pytest.raises(ValueError, match="Scale: axis must be a non-negative int"):
        L.Scale(axis=-1)
