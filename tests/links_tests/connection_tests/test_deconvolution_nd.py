"""L.DeconvolutionND, L.Deconvolution1D and L.Deconvolution3D against a NumPy transposed
convolution."""

import numpy as np
import pytest

import chainer
import chainer.links as L
from chainer import gradient_check, initializers

FORWARD_TOL = {np.float16: {"atol": 1e-2, "rtol": 5e-2}, np.float32: {"atol": 1e-5, "rtol": 1e-4}, np.float64: {}}
BACKWARD_TOL = {np.float16: {"atol": 5e-2, "rtol": 5e-2}, np.float32: {"atol": 1e-3, "rtol": 1e-3}, np.float64: {}}

CONFIGS = [
    # ndim, in, out, ksize, stride, pad, outsize, dilate, groups, spatial
    (1, 2, 3, 3, 2, 1, None, 1, 1, (4,)),
    (1, 2, 4, 2, 2, 0, (7,), 1, 2, (3,)),
    (2, 2, 2, (2, 1), 1, 0, None, (2, 1), 1, (2, 3)),
    (3, 1, 2, 2, 2, (1, 0, 0), None, 1, 1, (2, 2, 2)),
]


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_forward_backward_against_numpy(config, dtype, ref):
    ndim, c_in, c_out, ksize, stride, pad, outsize, dilate, groups, spatial = config
    with chainer.using_config("dtype", dtype):
        layer = L.DeconvolutionND(
            ndim,
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
    k = (ksize,) * ndim if isinstance(ksize, int) else ksize
    assert layer.W.shape == (c_in, c_out // groups, *k) and layer.W.dtype == dtype
    x = np.random.uniform(-1, 1, (2, c_in, *spatial)).astype(dtype)
    y = layer(x)
    expected = ref.deconv(x, layer.W.array, layer.b.array, stride, pad, outsize, dilate, groups)
    assert y.shape == expected.shape
    np.testing.assert_allclose(y.array, expected, **FORWARD_TOL[dtype])
    gy = np.random.uniform(-1, 1, y.shape).astype(dtype)
    gradient_check.check_backward(layer, x, gy, params=(layer.W, layer.b), dtype=np.float64, **BACKWARD_TOL[dtype])


@pytest.mark.parametrize("cls, ndim", [(L.Deconvolution1D, 1), (L.Deconvolution3D, 3)])
def test_fixed_dimension_layers(cls, ndim, ref):
    layer = cls(None, 2, 2, stride=2, nobias=True)
    assert isinstance(layer, L.DeconvolutionND) and layer.b is None
    x = np.random.uniform(-1, 1, (1, 3) + (2,) * ndim).astype(np.float32)
    y = layer(x)
    assert layer.W.shape == (3, 2) + (2,) * ndim
    np.testing.assert_allclose(y.array, ref.deconv(x, layer.W.array, None, 2), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match=rf"{cls.__name__}: the input must have {ndim + 2} dimensions"):
        layer(np.ones((1, 3) + (2,) * (ndim + 1), np.float32))


def test_shifted_arguments():
    layer = L.DeconvolutionND(1, 3, 2)
    assert layer.W.array is None and layer.out_channels == 3 and layer.ksize == (2,)
    assert layer(np.ones((1, 5, 4), np.float32)).shape == (1, 3, 5)


def test_bad_arguments():
    with pytest.raises(ValueError, match="DeconvolutionND: outsize must be an int or a sequence of 2 ints"):
        L.DeconvolutionND(2, 1, 1, 2, outsize=(3,))


def test_repr():
    assert repr(L.Deconvolution1D(1, 2, 3)) == (
        "Deconvolution1D(in_channels=1, out_channels=2, ksize=3, stride=(1,), pad=(0,), nobias=False, "
        "dilate=(1,), groups=1, outsize=None)"
    )
