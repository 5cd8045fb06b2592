"""L.DeformableConvolution2D: offsets predicted by a convolution move the kernel taps
of a second convolution, which samples the input bilinearly."""

import numpy as np
import pytest

import chainer
import chainer.links as L
from chainer import gradient_check, initializers


def _bilinear(image, y, x):
    """image[c, y, x] at a fractional position, zero outside."""
    c, h, w = image.shape
    y0, x0 = int(np.floor(y)), int(np.floor(x))
    value = np.zeros(c)
    for yy, wy in ((y0, 1 - (y - y0)), (y0 + 1, y - y0)):
        for xx, wx in ((x0, 1 - (x - x0)), (x0 + 1, x - x0)):
            if 0 <= yy < h and 0 <= xx < w:
                value += wy * wx * image[:, yy, xx]
    return value


def _reference(x, offset, W, b, stride, pad):
    """Loop over outputs and taps: tap (p, q) of output (i, j) reads x at (i s - pad + p +
    dy, j s - pad + q + dx), the x offsets being the first kh kw channels of ``offset``."""
    x, offset, W = (np.asarray(a, np.float64) for a in (x, offset, W))
    out_c, _, kh, kw = W.shape
    n, _, out_h, out_w = offset.shape
    y = np.zeros((n, out_c, out_h, out_w))
    for b_ in range(n):
        for i in range(out_h):
            for j in range(out_w):
                for p in range(kh):
                    for q in range(kw):
                        k = p * kw + q
                        sy = i * stride - pad + p + offset[b_, kh * kw + k, i, j]
                        sx = j * stride - pad + q + offset[b_, k, i, j]
                        y[b_, :, i, j] += W[:, :, p, q] @ _bilinear(x[b_], sy, sx)
    return y + np.asarray(b, np.float64).reshape(1, -1, 1, 1)


def test_structure_and_initialization():
    layer = L.DeformableConvolution2D(2, 3, (2, 3), offset_initialW=0, deform_initial_bias=1.0)
    assert layer.offset_conv.W.shape == (2 * 2 * 3, 2, 2, 3)
    assert layer.deform_conv.W.shape == (3, 2, 2, 3)
    np.testing.assert_array_equal(layer.offset_conv.W.array, 0)
    np.testing.assert_array_equal(layer.offset_conv.b.array, 0)
    np.testing.assert_array_equal(layer.deform_conv.b.array, [1.0, 1.0, 1.0])
    nobias = L.DeformableConvolution2D(2, 3, 2, offset_nobias=True, deform_nobias=True)
    assert nobias.offset_conv.b is None and nobias.deform_conv.b is None


def test_zero_offsets_give_a_regular_convolution(ref):
    layer = L.DeformableConvolution2D(2, 3, 3, stride=2, pad=1, offset_initialW=0)
    x = np.random.uniform(-1, 1, (2, 2, 5, 5)).astype(np.float32)
    y = layer(x)
    expected = ref.conv(x, layer.deform_conv.W.array, layer.deform_conv.b.array, 2, 1)
    np.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype, tol", [(np.float32, 1e-4), (np.float64, 1e-10)])
def test_fractional_offsets_against_loop_reference(dtype, tol):
    with chainer.using_config("dtype", dtype):
        layer = L.DeformableConvolution2D(
            2,
            2,
            2,
            pad=1,
            offset_initialW=initializers.Uniform(0.3),
            offset_initial_bias=initializers.Uniform(0.8),
            deform_initial_bias=initializers.Uniform(1.0),
        )
    x = np.random.uniform(-1, 1, (1, 2, 3, 3)).astype(dtype)
    y = layer(x)
    offset = layer.offset_conv(x).array
    assert offset.shape == (1, 8, 4, 4)
    expected = _reference(x, offset, layer.deform_conv.W.array, layer.deform_conv.b.array, 1, 1)
    np.testing.assert_allclose(y.array, expected, rtol=tol, atol=tol)


def test_gradients_through_both_convolutions():
    with chainer.using_config("dtype", np.float64):
        layer = L.DeformableConvolution2D(
            2, 2, 2, pad=1, offset_initialW=initializers.Uniform(0.2), offset_initial_bias=initializers.Uniform(0.45)
        )
    # Keep sampling positions away from integer coordinates, where bilinear sampling has kinks.
    x = np.random.uniform(-1, 1, (1, 2, 3, 3))
    gy = np.random.uniform(-1, 1, (1, 2, 4, 4))
    params = tuple(layer.params())
    assert len(params) == 4
    gradient_check.check_backward(layer, x, gy, params=params, eps=1e-4, atol=1e-4, rtol=1e-3)


def test_lazy_in_channels():
    layer = L.DeformableConvolution2D(None, 2, 3, pad=1)
    assert layer.offset_conv.W.array is None and layer.deform_conv.W.array is None
    assert layer(np.ones((1, 4, 3, 3), np.float32)).shape == (1, 2, 3, 3)
    assert layer.offset_conv.W.shape == (18, 4, 3, 3) and layer.deform_conv.W.shape == (2, 4, 3, 3)
