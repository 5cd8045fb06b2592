"""L.ConvolutionND, L.Convolution1D and L.Convolution3D against a NumPy N-d convolution."""

import numpy as np
import pytest

import chainer
import chainer.links as L
from chainer import gradient_check, initializers

FORWARD_TOL = {np.float16: {"atol": 1e-2, "rtol": 5e-2}, np.float32: {"atol": 1e-5, "rtol": 1e-4}, np.float64: {}}
BACKWARD_TOL = {np.float16: {"atol": 5e-2, "rtol": 5e-2}, np.float32: {"atol": 1e-3, "rtol": 1e-3}, np.float64: {}}

CONFIGS = [
    # (ndim, in, out, ksize, stride, pad, cover_all, dilate, groups, spatial input shape)
    (1, 2, 3, 3, 1, 1, False, 1, 1, (5,)),
    (1, 4, 2, 2, 2, 0, True, 1, 2, (6,)),
    (2, 2, 2, (2, 1), (1, 2), 1, False, (1, 1), 1, (3, 4)),
    (3, 1, 2, 2, 1, 0, False, 1, 1, (3, 3, 2)),
    (3, 2, 2, (1, 2, 2), 2, (0, 1, 1), True, (1, 2, 1), 2, (3, 4, 3)),
]


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_forward_backward_against_numpy(config, dtype, ref):
    ndim, c_in, c_out, ksize, stride, pad, cover_all, dilate, groups, spatial = config
    with chainer.using_config("dtype", dtype):
        layer = L.ConvolutionND(
            ndim,
            c_in,
            c_out,
            ksize,
            stride,
            pad,
            initial_bias=initializers.Uniform(1.0),
            cover_all=cover_all,
            dilate=dilate,
            groups=groups,
        )
    k = (ksize,) * ndim if isinstance(ksize, int) else ksize
    assert layer.W.shape == (c_out, c_in // groups, *k) and layer.W.dtype == dtype
    x = np.random.uniform(-1, 1, (2, c_in, *spatial)).astype(dtype)
    y = layer(x)
    expected = ref.conv(x, layer.W.array, layer.b.array, stride, pad, dilate, groups, cover_all)
    assert y.shape == expected.shape
    np.testing.assert_allclose(y.array, expected, **FORWARD_TOL[dtype])
    gy = np.random.uniform(-1, 1, y.shape).astype(dtype)
    gradient_check.check_backward(layer, x, gy, params=(layer.W, layer.b), dtype=np.float64, **BACKWARD_TOL[dtype])


@pytest.mark.parametrize(
    "cls, ndim",
    [(L.Convolution1D, 1), (L.Convolution3D, 3)],
)
def test_fixed_dimension_layers(cls, ndim, ref):
    layer = cls(2, 3, 2, stride=1, pad=1, nobias=True, initialW=initializers.Normal(1.0))
    assert isinstance(layer, L.ConvolutionND)
    assert layer.W.shape == (3, 2) + (2,) * ndim and layer.b is None
    x = np.random.uniform(-1, 1, (1, 2) + (3,) * ndim).astype(np.float32)
    y = layer(x)
    np.testing.assert_allclose(y.array, ref.conv(x, layer.W.array, None, 1, 1), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match=rf"{cls.__name__}: the input must have {ndim + 2} dimensions"):
        layer(np.ones((1, 2) + (3,) * (ndim + 1), np.float32))


def test_lazy_in_channels_and_shifted_arguments():
    for layer in (L.ConvolutionND(2, None, 3, 2), L.ConvolutionND(2, 3, 2), L.Convolution1D(None, 3, 2)):
        assert layer.W.array is None and layer.out_channels == 3
        x = np.ones((1, 4) + (3,) * layer._ndim, np.float32)
        assert layer(x).shape == (1, 3) + (2,) * layer._ndim
        assert layer.W.shape == (3, 4) + (2,) * layer._ndim and layer.in_channels == 4
    with pytest.raises(ValueError, match=r"ConvolutionND: the input must have 4 dimensions"):
        L.ConvolutionND(2, None, 3, 2)(np.ones((1, 4, 3), np.float32))


def test_bias_is_enabled_by_default():
    layer = L.ConvolutionND(2, 1, 2, 1)
    np.testing.assert_array_equal(layer.b.array, [0.0, 0.0])


def test_ksize_of_the_wrong_length():
    with pytest.raises(ValueError, match="ConvolutionND: ksize must be an int or a sequence of 3 ints, got"):
        L.ConvolutionND(3, 1, 1, (2, 2))
    with pytest.raises(ValueError, match="ConvolutionND: ndim must be a positive int, got 0"):
        L.ConvolutionND(0, 1, 1, 1)


def test_repr():
    assert repr(L.Convolution1D(1, 2, 3)) == (
        "Convolution1D(in_channels=1, out_channels=2, ksize=3, stride=(1,), pad=(0,), nobias=False, "
        "dilate=(1,), groups=1, cover_all=False)"
    )
    assert repr(L.ConvolutionND(2, 1, 2, 1)).startswith("ConvolutionND(ndim=2, in_channels=1,")


def test_given_initializers():
    W = np.random.uniform(-1, 1, (2, 1, 2, 2, 2)).astype(np.float32)
    layer = L.Convolution3D(1, 2, 2, initialW=W, initial_bias=np.array([0.5, -0.5], np.float32))
    np.testing.assert_array_equal(layer.W.array, W)
    np.testing.assert_array_equal(layer.b.array, [0.5, -0.5])
    scalar = L.ConvolutionND(1, 2, 3, 2, initialW=0.125, initial_bias=1)
    np.testing.assert_array_equal(scalar.W.array, np.full((3, 2, 2), 0.125, np.float32))
    np.testing.assert_array_equal(scalar.b.array, [1, 1, 1])
    default = L.ConvolutionND(1, 16, 64, 4)
    np.testing.assert_allclose(default.W.array.std(), 1 / np.sqrt(16 * 4), rtol=0.05)
