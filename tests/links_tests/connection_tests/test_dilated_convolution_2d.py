"""L.DilatedConvolution2D against a NumPy dilated convolution."""

import numpy as np
import pytest

import chainer
import chainer.links as L
from chainer import gradient_check, initializers

FORWARD_TOL = {np.float16: {"atol": 1e-2, "rtol": 5e-2}, np.float32: {"atol": 1e-5, "rtol": 1e-4}, np.float64: {}}
BACKWARD_TOL = {np.float16: {"atol": 5e-2, "rtol": 5e-2}, np.float32: {"atol": 1e-3, "rtol": 1e-3}, np.float64: {}}


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("stride, pad, dilate", [(1, 0, 2), (2, 2, (2, 1)), ((1, 2), (1, 0), 3)])
def test_forward_backward_against_numpy(dtype, stride, pad, dilate, ref):
    with chainer.using_config("dtype", dtype):
        layer = L.DilatedConvolution2D(2, 3, 2, stride, pad, dilate, initial_bias=initializers.Uniform(1.0))
    assert layer.W.shape == (3, 2, 2, 2) and layer.dilate == ((dilate,) * 2 if isinstance(dilate, int) else dilate)
    x = np.random.uniform(-1, 1, (2, 2, 5, 5)).astype(dtype)
    y = layer(x)
    expected = ref.conv(x, layer.W.array, layer.b.array, stride, pad, dilate)
    assert y.shape == expected.shape
    np.testing.assert_allclose(y.array, expected, **FORWARD_TOL[dtype])
    gy = np.random.uniform(-1, 1, y.shape).astype(dtype)
    gradient_check.check_backward(layer, x, gy, params=(layer.W, layer.b), dtype=np.float64, **BACKWARD_TOL[dtype])


def test_lazy_and_shifted_arguments():
    for layer in (L.DilatedConvolution2D(None, 2, 3, dilate=2), L.DilatedConvolution2D(2, 3, dilate=2)):
        assert layer.W.array is None
        assert layer(np.ones((1, 3, 5, 5), np.float32)).shape == (1, 2, 1, 1)
        assert layer.W.shape == (2, 3, 3, 3)


def test_initialization_and_nobias():
    layer = L.DilatedConvolution2D(1, 2, 2, nobias=True, initialW=2.0)
    assert layer.b is None
    np.testing.assert_array_equal(layer.W.array, np.full((2, 1, 2, 2), 2, np.float32))
    with pytest.raises(ValueError, match="DilatedConvolution2D: every element of dilate must be >= 1"):
        L.DilatedConvolution2D(1, 1, 1, dilate=0)
