"""L.DepthwiseConvolution2D: output channel ``c * multiplier + m`` is input channel ``c``
convolved with kernel ``W[m, c]``."""

import numpy as np
import pytest

import chainer
import chainer.links as L
from chainer import gradient_check, initializers

FORWARD_TOL = {np.float16: {"atol": 1e-2, "rtol": 5e-2}, np.float32: {"atol": 1e-5, "rtol": 1e-4}, np.float64: {}}
BACKWARD_TOL = {np.float16: {"atol": 5e-2, "rtol": 5e-2}, np.float32: {"atol": 1e-3, "rtol": 1e-3}, np.float64: {}}


def _reference(x, W, b, stride, pad, ref):
    multiplier, channels = W.shape[:2]
    outs = []
    for c in range(channels):
        for m in range(multiplier):
            outs.append(ref.conv(x[:, c : c + 1], W[m : m + 1, c : c + 1], None, stride, pad)[:, 0])
    y = np.stack(outs, axis=1)
    return y if b is None else y + np.asarray(b, np.float64).reshape(1, -1, 1, 1)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("multiplier, stride, pad", [(1, 1, 0), (2, 2, 1), (3, (1, 2), (0, 1))])
def test_forward_backward_against_numpy(dtype, multiplier, stride, pad, ref):
    with chainer.using_config("dtype", dtype):
        layer = L.DepthwiseConvolution2D(3, multiplier, 2, stride, pad, initial_bias=initializers.Uniform(1.0))
    assert layer.W.shape == (multiplier, 3, 2, 2) and layer.b.shape == (3 * multiplier,)
    x = np.random.uniform(-1, 1, (2, 3, 4, 4)).astype(dtype)
    y = layer(x)
    expected = _reference(x, layer.W.array, layer.b.array, stride, pad, ref)
    assert y.shape == expected.shape
    np.testing.assert_allclose(y.array, expected, **FORWARD_TOL[dtype])
    gy = np.random.uniform(-1, 1, y.shape).astype(dtype)
    gradient_check.check_backward(layer, x, gy, params=(layer.W, layer.b), dtype=np.float64, **BACKWARD_TOL[dtype])


def test_lazy_in_channels_creates_kernel_and_bias():
    layer = L.DepthwiseConvolution2D(None, 2, 3, initial_bias=0.5)
    assert layer.W.array is None and layer.b.array is None and layer.in_channels is None
    layer(np.ones((1, 4, 3, 3), np.float32))
    assert layer.W.shape == (2, 4, 3, 3) and layer.in_channels == 4
    np.testing.assert_array_equal(layer.b.array, np.full(8, 0.5, np.float32))
    with pytest.raises(ValueError, match="DepthwiseConvolution2D: the input must be 4-dimensional"):
        L.DepthwiseConvolution2D(None, 2, 3)(np.ones((1, 4), np.float32))


def test_initialization_and_nobias():
    layer = L.DepthwiseConvolution2D(2, 1, 2, nobias=True, initialW=initializers.One())
    assert layer.b is None
    np.testing.assert_array_equal(layer.W.array, np.ones((1, 2, 2, 2), np.float32))
    with pytest.raises(ValueError, match="DepthwiseConvolution2D: channel_multiplier must be a positive int"):
        L.DepthwiseConvolution2D(2, 0, 2)
