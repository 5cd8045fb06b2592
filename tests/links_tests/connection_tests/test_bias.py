"""L.Bias: a learnable (or given) bias added with broadcasting from ``axis``."""

import numpy as np
import pytest

import chainer
import chainer.links as L
from chainer import gradient_check


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("axis, shape", [(1, (3,)), (1, (3, 4)), (2, (4,)), (0, (2, 3, 4))])
def test_learned_bias(dtype, axis, shape):
    with chainer.using_config("dtype", dtype):
        layer = L.Bias(axis, shape)
    assert layer.b.shape == shape and layer.b.dtype == dtype
    np.testing.assert_array_equal(layer.b.array, 0)
    layer.b.array[...] = np.random.uniform(-1, 1, shape)
    x = np.random.uniform(-1, 1, (2, 3, 4)).astype(dtype)
    y = layer(x)
    b = layer.b.array.reshape((1,) * axis + shape + (1,) * (3 - axis - len(shape)))
    np.testing.assert_array_equal(y.array, x + b)
    gy = np.random.uniform(-1, 1, x.shape).astype(dtype)
    tol = {"atol": 1e-2, "rtol": 1e-2} if dtype == np.float16 else {}
    gradient_check.check_backward(layer, x, gy, params=(layer.b,), dtype=np.float64, **tol)


def test_given_bias():
    layer = L.Bias(axis=1)
    assert list(layer.params()) == []
    x = np.random.uniform(-1, 1, (2, 3, 2)).astype(np.float32)
    b = np.array([1.0, 2.0, 3.0], np.float32)
    np.testing.assert_array_equal(layer(x, b).array, x + b[None, :, None])
    gradient_check.check_backward(layer, (x, b), np.ones_like(x), dtype=np.float64, atol=1e-3, rtol=1e-3)


def test_wrong_number_of_inputs():
    with pytest.raises(TypeError, match=r"Bias: takes one input \(x\) when the bias is learned, got 2"):
        L.Bias(shape=(2,))(np.ones((1, 2), np.float32), np.ones(2, np.float32))
    with pytest.raises(TypeError, match=r"Bias: takes two inputs \(x, y\) when no shape was given, got 1"):
        L.Bias()(np.ones((1, 2), np.float32))
    with pytest.raises(ValueError, match="Bias: shape must be a tuple of non-negative ints"):
        L.Bias(shape="3")
