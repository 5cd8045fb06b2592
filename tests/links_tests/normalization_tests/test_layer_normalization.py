"""L.LayerNormalization: each example normalized over its features, then scaled and
shifted per feature."""

import numpy as np
import pytest

import chainer
import chainer.links as L
from chainer import gradient_check, initializers


def _reference(x, gamma, beta, eps):
    x = np.asarray(x, np.float64)
    mean, var = x.mean(axis=1, keepdims=True), x.var(axis=1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


@pytest.mark.parametrize("dtype, tol", [(np.float16, 3e-2), (np.float32, 1e-5), (np.float64, 1e-12)])
def test_forward_backward_against_numpy(dtype, tol):
    with chainer.using_config("dtype", dtype):
        layer = L.LayerNormalization(5, initial_gamma=initializers.Uniform(1.0), initial_beta=initializers.Uniform(1.0))
    x = np.random.uniform(-1, 1, (4, 5)).astype(dtype)
    y = layer(x)
    gamma, beta = layer.gamma.array.astype(np.float64), layer.beta.array.astype(np.float64)
    np.testing.assert_allclose(y.array, _reference(x, gamma, beta, 1e-6), rtol=tol, atol=tol)
    gy = np.random.uniform(-1, 1, x.shape).astype(dtype)
    check = {"atol": 5e-2, "rtol": 5e-2} if dtype == np.float16 else {"atol": 1e-4, "rtol": 1e-3}
    gradient_check.check_backward(layer, x, gy, params=(layer.gamma, layer.beta), dtype=np.float64, **check)


def test_lazy_size_and_defaults():
    layer = L.LayerNormalization()
    assert layer.gamma.array is None and layer.eps == 1e-6
    x = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 6.0]], np.float32)
    y = layer(x)
    np.testing.assert_array_equal(layer.gamma.array, [1, 1, 1])
    np.testing.assert_array_equal(layer.beta.array, [0, 0, 0])
    np.testing.assert_allclose(y.array, _reference(x, 1, 0, 1e-6), rtol=1e-5)


def test_eps():
    layer = L.LayerNormalization(2, eps=1.0)
    x = np.array([[0.0, 2.0]], np.float32)
    np.testing.assert_allclose(layer(x).array, [[-1 / np.sqrt(2), 1 / np.sqrt(2)]], rtol=1e-6)
    with pytest.raises(ValueError, match="LayerNormalization: eps must be a real number > 0.0, got 0"):
        L.LayerNormalization(2, eps=0)
