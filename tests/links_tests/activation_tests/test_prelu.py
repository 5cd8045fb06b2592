"""L.PReLU: x where x >= 0, W x elsewhere, W broadcast from axis 1."""

import numpy as np
import pytest

import chainer
import chainer.links as L
from chainer import gradient_check, initializers


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("shape", [(), (3,), (3, 2)])
def test_forward_backward_against_numpy(dtype, shape):
    with chainer.using_config("dtype", dtype):
        layer = L.PReLU(shape, init=initializers.Uniform(1.0))
    assert layer.W.shape == shape and layer.W.dtype == dtype
    x = np.random.uniform(-1, 1, (4, 3, 2)).astype(dtype)
    x[np.abs(x) < 0.05] = 0.5  # away from the kink
    W = layer.W.array.reshape((1,) + shape + (1,) * (2 - len(shape)))
    y = layer(x)
    np.testing.assert_array_equal(y.array, np.where(x >= 0, x, W * x).astype(dtype))
    gy = np.random.uniform(-1, 1, x.shape).astype(dtype)
    tol = {"atol": 1e-2, "rtol": 5e-2} if dtype == np.float16 else {}
    gradient_check.check_backward(layer, x, gy, params=(layer.W,), dtype=np.float64, **tol)


def test_default_slope():
    layer = L.PReLU()
    assert layer.W.shape == () and float(layer.W.array) == 0.25
    np.testing.assert_array_equal(layer(np.array([[-4.0, 2.0]], np.float32)).array, [[-1.0, 2.0]])
    np.testing.assert_array_equal(L.PReLU((2,), init=np.array([0.5, 2.0])).W.array, [0.5, 2.0])


def test_bad_arguments():
    with pytest.raises(ValueError, match="PReLU: shape must be a tuple of non-negative ints"):
        L.PReLU(shape=(-1,))
    with pytest.raises(chainer.utils.type_check.InvalidType):
        L.PReLU((4,))(np.ones((2, 3), np.float32))
