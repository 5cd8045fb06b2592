"""L.SimplifiedDropconnect: a linear layer whose weights are dropped per example."""

import numpy as np
import pytest

import chainer
import chainer.links as L
from chainer import gradient_check, initializers


def _reference(x, W, b, mask, scale):
    x = np.asarray(x, np.float64).reshape(len(x), -1)
    y = np.einsum("nij,ij,nj->ni", np.broadcast_to(mask, (len(x),) + W.shape), W, x) * scale
    return y if b is None else y + b


@pytest.mark.parametrize("dtype, tol", [(np.float16, 2e-2), (np.float32, 1e-5), (np.float64, 1e-12)])
def test_given_mask(dtype, tol):
    with chainer.using_config("dtype", dtype):
        layer = L.SimplifiedDropconnect(4, 3, ratio=0.25, initial_bias=initializers.Uniform(1.0))
    x = np.random.uniform(-1, 1, (2, 4)).astype(dtype)
    mask = (np.random.uniform(size=(2, 3, 4)) > 0.25).astype(dtype)
    y = layer(x, mask=mask)
    W, b = layer.W.array.astype(np.float64), layer.b.array.astype(np.float64)
    np.testing.assert_allclose(y.array, _reference(x, W, b, mask, 1 / 0.75), rtol=tol, atol=tol)
    gy = np.random.uniform(-1, 1, y.shape).astype(dtype)
    check_tol = {"atol": 1e-2, "rtol": 5e-2} if dtype == np.float16 else {}
    gradient_check.check_backward(
        lambda x: layer(x, mask=mask), x, gy, params=(layer.W, layer.b), dtype=np.float64, **check_tol
    )


def test_not_training_is_a_linear_layer():
    layer = L.SimplifiedDropconnect(3, 2, ratio=0.9)
    x = np.random.uniform(-1, 1, (5, 3)).astype(np.float32)
    np.testing.assert_allclose(layer(x, train=False).array, x @ layer.W.array.T + layer.b.array, rtol=1e-5)


def test_random_masks_drop_about_ratio_of_the_weights():
    layer = L.SimplifiedDropconnect(1, 1, ratio=0.3, initialW=1.0, nobias=True)
    x = np.ones((20000, 1), np.float32)
    y = layer(x).array.ravel()
    # Each example sees W dropped (0) or kept and scaled (1 / 0.7).
    kept = y != 0
    np.testing.assert_allclose(y[kept], 1 / 0.7, rtol=1e-6)
    assert abs((y == 0).mean() - 0.3) < 0.02
    shared = layer(x, use_batchwise_mask=False).array
    assert len(np.unique(shared)) == 1


def test_shapes_and_initialization():
    layer = L.SimplifiedDropconnect(None, 3)
    assert layer.W.array is None and layer.b.shape == (3,)
    layer(np.ones((2, 2, 2), np.float32), train=False)
    assert layer.W.shape == (3, 4)
    default = L.SimplifiedDropconnect(400, 200)
    np.testing.assert_allclose(default.W.array.std(), 1 / np.sqrt(400), rtol=0.05)
    assert L.SimplifiedDropconnect(2, 2, nobias=True).b is None
    with pytest.raises(ValueError, match=r"SimplifiedDropconnect: ratio must be a real number in \[0, 1\), got 1"):
        L.SimplifiedDropconnect(2, 2, ratio=1)
