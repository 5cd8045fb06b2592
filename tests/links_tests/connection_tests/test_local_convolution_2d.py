"""L.LocalConvolution2D: an unshared kernel and bias per output position."""

import numpy as np
import pytest

import chainer
import chainer.links as L
from chainer import gradient_check, initializers

FORWARD_TOL = {np.float16: {"atol": 1e-2, "rtol": 5e-2}, np.float32: {"atol": 1e-5, "rtol": 1e-4}, np.float64: {}}
BACKWARD_TOL = {np.float16: {"atol": 5e-2, "rtol": 5e-2}, np.float32: {"atol": 1e-3, "rtol": 1e-3}, np.float64: {}}


def _reference(x, W, b, stride):
    x, W = x.astype(np.float64), W.astype(np.float64)
    out_c, out_h, out_w, _, kh, kw = W.shape
    sy, sx = stride
    y = np.zeros((x.shape[0], out_c, out_h, out_w))
    for i in range(out_h):
        for j in range(out_w):
            patch = x[:, :, i * sy : i * sy + kh, j * sx : j * sx + kw]
            y[:, :, i, j] = np.einsum("nckl,ockl->no", patch, W[:, i, j])
    return y if b is None else y + b


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("ksize, stride", [(2, (1, 1)), ((3, 2), (2, 1))])
def test_forward_backward_against_numpy(dtype, ksize, stride, ref):
    with chainer.using_config("dtype", dtype):
        layer = L.LocalConvolution2D(2, 3, (5, 4), ksize, stride, initial_bias=initializers.Uniform(1.0))
    kh, kw = (ksize, ksize) if isinstance(ksize, int) else ksize
    out_h, out_w = (5 - kh) // stride[0] + 1, (4 - kw) // stride[1] + 1
    assert layer.W.shape == (3, out_h, out_w, 2, kh, kw) and layer.b.shape == (3, out_h, out_w)
    x = np.random.uniform(-1, 1, (2, 2, 5, 4)).astype(dtype)
    y = layer(x)
    np.testing.assert_allclose(y.array, _reference(x, layer.W.array, layer.b.array, stride), **FORWARD_TOL[dtype])
    gy = np.random.uniform(-1, 1, y.shape).astype(dtype)
    gradient_check.check_backward(layer, x, gy, params=(layer.W, layer.b), dtype=np.float64, **BACKWARD_TOL[dtype])


def test_shapes_inferred_from_the_first_input():
    layer = L.LocalConvolution2D(None, 2, ksize=2)
    assert layer.W.array is None and layer.b.array is None
    layer(np.ones((1, 3, 4, 5), np.float32))
    assert layer.W.shape == (2, 3, 4, 3, 2, 2) and layer.b.shape == (2, 3, 4)
    assert (layer.in_channels, layer.in_size) == (3, (4, 5))


def test_declared_sizes_must_match_the_input():
    layer = L.LocalConvolution2D(3, 2, ksize=2)  # in_size unknown: lazy
    with pytest.raises(ValueError, match="LocalConvolution2D: the layer was built with in_channels=3, the input has 4"):
        layer(np.ones((1, 4, 3, 3), np.float32))


def test_bad_arguments():
    with pytest.raises(ValueError, match="LocalConvolution2D: ksize is required"):
        L.LocalConvolution2D(1, 1, 3)
    with pytest.raises(ValueError, match=r"LocalConvolution2D: the kernel \(4, 4\) does not fit"):
        L.LocalConvolution2D(1, 1, 3, 4)
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        L.LocalConvolution2D(1, 1, 3, 2, pad=1)


def test_nobias():
    layer = L.LocalConvolution2D(1, 1, 3, 2, nobias=True)
    assert layer.b is None
    x = np.random.uniform(-1, 1, (1, 1, 3, 3)).astype(np.float32)
    np.testing.assert_allclose(layer(x).array, _reference(x, layer.W.array, None, (1, 1)), rtol=1e-5, atol=1e-6)


def test_given_initializers():
    layer = L.LocalConvolution2D(
        2, 3, 3, 2, initialW=0.5, initial_bias=np.arange(12, dtype=np.float32).reshape(3, 2, 2)
    )
    np.testing.assert_array_equal(layer.W.array, np.full((3, 2, 2, 2, 2, 2), 0.5, np.float32))
    np.testing.assert_array_equal(layer.b.array, np.arange(12).reshape(3, 2, 2))
    default = L.LocalConvolution2D(8, 8, 6, 3)
    np.testing.assert_allclose(default.W.array.std(), 1 / np.sqrt(4 * 4 * 8 * 9), rtol=0.1)
