"""L.Deconvolution2D against a NumPy transposed convolution (each input pixel scatters
the kernel onto the output)."""

import numpy as np
import pytest

import chainer
import chainer.links as L
from chainer import gradient_check, initializers

FORWARD_TOL = {np.float16: {"atol": 1e-2, "rtol": 5e-2}, np.float32: {"atol": 1e-5, "rtol": 1e-4}, np.float64: {}}
BACKWARD_TOL = {np.float16: {"atol": 5e-2, "rtol": 5e-2}, np.float32: {"atol": 1e-3, "rtol": 1e-3}, np.float64: {}}

CONFIGS = [
    # in, out, ksize, stride, pad, outsize, dilate, groups
    (3, 2, 3, 1, 0, None, 1, 1),
    (2, 3, (2, 3), (2, 1), (1, 0), None, 1, 1),
    (2, 2, 3, 2, 1, (6, 6), 1, 1),
    (4, 2, 2, 1, 0, None, 2, 2),
]


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_forward_backward_against_numpy(config, dtype, ref):
    c_in, c_out, ksize, stride, pad, outsize, dilate, groups = config
    with chainer.using_config("dtype", dtype):
        layer = L.Deconvolution2D(
            c_in,
            c_out,
            ksize,
            stride,
            pad,
            outsize=outsize,
            initial_bias=initializers.Uniform(1.0),
            dilate=dilate,
            groups=groups,
        )
    k = (ksize, ksize) if isinstance(ksize, int) else ksize
    assert layer.W.shape == (c_in, c_out // groups, *k) and layer.W.dtype == dtype
    x = np.random.uniform(-1, 1, (2, c_in, 3, 3)).astype(dtype)
    y = layer(x)
    expected = ref.deconv(x, layer.W.array, layer.b.array, stride, pad, outsize, dilate, groups)
    assert y.shape == expected.shape
    if outsize is not None:
        assert y.shape[2:] == outsize
    np.testing.assert_allclose(y.array, expected, **FORWARD_TOL[dtype])
    gy = np.random.uniform(-1, 1, y.shape).astype(dtype)
    gradient_check.check_backward(layer, x, gy, params=(layer.W, layer.b), dtype=np.float64, **BACKWARD_TOL[dtype])


def test_lazy_in_channels_and_shifted_arguments():
    for layer in (L.Deconvolution2D(None, 3, 2), L.Deconvolution2D(3, 2)):
        assert layer.W.array is None and layer.in_channels is None
        assert layer(np.ones((1, 4, 2, 2), np.float32)).shape == (1, 3, 3, 3)
        assert layer.W.shape == (4, 3, 2, 2) and layer.in_channels == 4


def test_initialization():
    layer = L.Deconvolution2D(64, 4, 3, initialW=initializers.One(), initial_bias=-1)
    np.testing.assert_array_equal(layer.W.array, np.ones((64, 4, 3, 3), np.float32))
    np.testing.assert_array_equal(layer.b.array, -np.ones(4, np.float32))
    default = L.Deconvolution2D(64, 48, 3)
    # LeCunNormal on the (in, out, kh, kw) kernel: fan_in = out * kh * kw.
    np.testing.assert_allclose(default.W.array.std(), 1 / np.sqrt(48 * 9), rtol=0.05)
    np.testing.assert_array_equal(default.b.array, np.zeros(48, np.float32))
    assert L.Deconvolution2D(2, 2, 2, nobias=True).b is None


def test_bad_arguments():
    with pytest.raises(ValueError, match="Deconvolution2D: outsize must be an int or a sequence of 2 ints"):
        L.Deconvolution2D(1, 1, 2, outsize=(1, 2, 3))
    with pytest.raises(ValueError, match="deterministic argument is not supported anymore"):
        L.Deconvolution2D(1, 1, 1, deterministic=True)
    with pytest.raises(ValueError, match=r"Deconvolution2D: out_channels \(3\) must be a multiple of groups \(2\)"):
        L.Deconvolution2D(2, 3, 1, groups=2)


def test_repr():
    assert repr(L.Deconvolution2D(2, 3, 2, stride=2, outsize=(4, 4))) == (
        "Deconvolution2D(in_channels=2, out_channels=3, ksize=2, stride=(2, 2), pad=(0, 0), nobias=False, "
        "dilate=(1, 1), groups=1, outsize=(4, 4))"
    )
