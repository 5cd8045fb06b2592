"""L.Swish: x * sigmoid(beta x) with a learnable beta."""

import numpy as np
import pytest

import chainer
import chainer.links as L
from chainer import gradient_check, initializers


@pytest.mark.parametrize("dtype, tol", [(np.float16, 5e-3), (np.float32, 1e-6), (np.float64, 1e-12)])
@pytest.mark.parametrize("beta_shape", [(3,), (3, 2)])
def test_forward_backward_against_numpy(dtype, tol, beta_shape):
    with chainer.using_config("dtype", dtype):
        layer = L.Swish(beta_shape, beta_init=initializers.Uniform(2.0))
    assert layer.beta.shape == beta_shape and layer.beta.dtype == dtype
    x = np.random.uniform(-2, 2, (4, 3, 2)).astype(dtype)
    beta = layer.beta.array.astype(np.float64).reshape((1,) + beta_shape + (1,) * (2 - len(beta_shape)))
    y = layer(x)
    expected = x / (1 + np.exp(-beta * x))
    np.testing.assert_allclose(y.array, expected, rtol=tol, atol=tol)
    gy = np.random.uniform(-1, 1, x.shape).astype(dtype)
    check_tol = {"atol": 1e-2, "rtol": 5e-2} if dtype == np.float16 else {}
    gradient_check.check_backward(layer, x, gy, params=(layer.beta,), dtype=np.float64, **check_tol)


def test_default_and_lazy_beta():
    layer = L.Swish(None)
    assert layer.beta.array is None
    y = layer(np.array([[0.0, 2.0], [1.0, -1.0]], np.float32))
    np.testing.assert_array_equal(layer.beta.array, [1.0, 1.0])
    np.testing.assert_allclose(y.array, [[0.0, 2 / (1 + np.exp(-2))], [1 / (1 + np.exp(-1)), -1 / (1 + np.exp(1))]])
    with pytest.raises(ValueError, match="Swish: cannot infer the shape of beta from an input of shape"):
        L.Swish(None)(np.ones(3, np.float32))


def test_lazy_beta_covers_every_non_batch_axis():
    # Swish(None): beta takes the shape of x.shape[1:], one value per element (Chainer 7).
    layer = L.Swish(None)
    x = np.random.uniform(-1, 1, (4, 3, 2)).astype(np.float32)
    y = layer(x)
    assert layer.beta.shape == (3, 2)
    layer.beta.array[...] = np.arange(6, dtype=np.float32).reshape(3, 2)
    y = layer(x)
    beta = layer.beta.array
    np.testing.assert_allclose(y.array, x / (1 + np.exp(-beta * x)), rtol=1e-5, atol=1e-7)
