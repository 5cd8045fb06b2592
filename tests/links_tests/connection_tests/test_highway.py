"""L.Highway: y = h(x W_H + b_H) * t + x * (1 - t), t = sigmoid(x W_T + b_T)."""

import numpy as np
import pytest

import chainer
import chainer.functions as F
import chainer.links as L
from chainer import gradient_check, initializers


def _sigmoid(z):
    return 1 / (1 + np.exp(-z))


@pytest.mark.parametrize("dtype, tol", [(np.float16, 2e-2), (np.float32, 1e-5), (np.float64, 1e-12)])
def test_forward_against_numpy(dtype, tol):
    with chainer.using_config("dtype", dtype):
        layer = L.Highway(3, init_bh=initializers.Uniform(1.0))
    x = np.random.uniform(-1, 1, (4, 3)).astype(dtype)
    y = layer(x)
    f64 = lambda a: np.asarray(a, np.float64)
    plain = np.maximum(f64(x) @ f64(layer.plain.W.array).T + f64(layer.plain.b.array), 0)
    gate = _sigmoid(f64(x) @ f64(layer.transform.W.array).T + f64(layer.transform.b.array))
    assert y.dtype == dtype
    np.testing.assert_allclose(y.array, plain * gate + f64(x) * (1 - gate), rtol=tol, atol=tol)


def test_gradients():
    with chainer.using_config("dtype", np.float64):
        layer = L.Highway(3, activate=F.tanh, init_bh=initializers.Uniform(1.0))
    x = np.random.uniform(-1, 1, (4, 3))
    gy = np.random.uniform(-1, 1, (4, 3))
    gradient_check.check_backward(layer, x, gy, params=tuple(layer.params()))


def test_initialization():
    layer = L.Highway(3)
    np.testing.assert_array_equal(layer.plain.b.array, 0)
    np.testing.assert_array_equal(layer.transform.b.array, -1)
    layer = L.Highway(2, init_Wh=1.0, init_Wt=2.0, init_bh=3.0, init_bt=4.0)
    np.testing.assert_array_equal(layer.plain.W.array, 1.0)
    np.testing.assert_array_equal(layer.transform.W.array, 2.0)
    np.testing.assert_array_equal(layer.plain.b.array, 3.0)
    np.testing.assert_array_equal(layer.transform.b.array, 4.0)
    nobias = L.Highway(2, nobias=True)
    assert nobias.plain.b is None and nobias.transform.b is None


def test_closed_gate_carries_the_input():
    layer = L.Highway(2, init_Wt=0, init_bt=-50.0)
    x = np.random.uniform(-1, 1, (3, 2)).astype(np.float32)
    np.testing.assert_allclose(layer(x).array, x, atol=1e-6)


def test_bad_activation():
    with pytest.raises(TypeError, match="Highway: activate must be callable"):
        L.Highway(2, activate=None)
