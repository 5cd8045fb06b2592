import math

import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _source(o, in_size, out_size, mode, align_corners):
    if mode == "nearest":
        return float(min(math.floor(o * in_size / out_size), in_size - 1))
    if align_corners:
        return 0.0 if out_size == 1 else o * (in_size - 1) / (out_size - 1)
    return max((o + 0.5) * in_size / out_size - 0.5, 0.0)


def _reference(x, out_shape, mode, align_corners):
    n, c, h, w = x.shape
    out = numpy.empty((n, c) + tuple(out_shape), numpy.float64)
    for oy in range(out_shape[0]):
        sy = _source(oy, h, out_shape[0], mode, align_corners)
        y0 = min(int(math.floor(sy)), h - 1)
        y1, fy = min(y0 + 1, h - 1), sy - y0
        for ox in range(out_shape[1]):
            sx = _source(ox, w, out_shape[1], mode, align_corners)
            x0 = min(int(math.floor(sx)), w - 1)
            x1, fx = min(x0 + 1, w - 1), sx - x0
            out[:, :, oy, ox] = (
                x[:, :, y0, x0] * (1 - fy) * (1 - fx)
                + x[:, :, y0, x1] * (1 - fy) * fx
                + x[:, :, y1, x0] * fy * (1 - fx)
                + x[:, :, y1, x1] * fy * fx
            )
    return out.astype(x.dtype)


@testing.parameterize(
    *testing.product(
        {
            "case": [
                {"shape": (2, 2, 3, 4), "out": (5, 7)},
                {"shape": (1, 2, 5, 4), "out": (2, 3)},
                {"shape": (1, 1, 3, 3), "out": (1, 1)},
            ],
            "mode_and_align": [("bilinear", True), ("bilinear", False), ("nearest", True)],
            "dtype": DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestResizeImages(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 1e-2, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
            self.check_backward_options = {"atol": 1e-5, "rtol": 1e-4}
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.case["shape"]).astype(self.dtype),)

    def forward(self, inputs, device):
        mode, align = self.mode_and_align
        return (F.resize_images(inputs[0], self.case["out"], mode=mode, align_corners=align),)

    def forward_expected(self, inputs):
        mode, align = self.mode_and_align
        return (_reference(inputs[0].astype(numpy.float64), self.case["out"], mode, align).astype(self.dtype),)


def test_resize_images_documented_example():
    y = F.resize_images(numpy.array([[[[0.0, 1.0]]]], "f"), (1, 3))
    numpy.testing.assert_array_equal(y.array, [[[[0.0, 0.5, 1.0]]]])


def test_resize_images_invalid():
    x = numpy.zeros((1, 1, 2, 2), "f")
    with pytest.raises(type_check.InvalidType, match=r"ResizeImages \(Forward\)[\s\S]*x.ndim == 4"):
        F.resize_images(numpy.zeros((1, 2, 2), "f"), (3, 3))
    with pytest.raises(type_check.InvalidType, match=r"ResizeImages \(Forward\)[\s\S]*x.dtype.kind == f"):
        F.resize_images(numpy.zeros((1, 1, 2, 2), "i"), (3, 3))
    with pytest.raises(ValueError, match="resize_images: mode must be one of"):
        F.resize_images(x, (3, 3), mode="bicubic")
    with pytest.raises(ValueError, match="resize_images: output_shape must be two positive ints"):
        F.resize_images(x, (3, 0))
    with pytest.raises(TypeError, match="resize_images: output_shape must be a tuple of ints"):
        F.resize_images(x, 3)


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("align_corners", [True, False])
def test_the_interpolation_as_separate_steps(mode, align_corners):
    # Chainer 7's helpers: the source positions and weights, the interpolation at them
    # (the same as resize_images) and its adjoint (the same as resize_images' gradient).
    from chainer.functions.array import resize_images as module

    x = numpy.random.uniform(-1, 1, (2, 3, 4, 5))
    v, u, vw, uw = module.compute_indices_and_weights((3, 7), (4, 5), mode, align_corners, numpy)
    assert v.shape == vw.shape == (3,) and u.shape == uw.shape == (7,)
    if mode == "nearest":
        assert not vw.any() and not uw.any()
    y = module.interpolate_bilinear_cpu(x, v, u, vw, uw)
    expected = F.resize_images(x, (3, 7), mode=mode, align_corners=align_corners).array
    numpy.testing.assert_allclose(y, expected, rtol=1e-12)
    # Each output pixel mixes its four neighbours with the product weights.
    i, j = 1, 2
    v1, u1 = min(v[i] + 1, 3), min(u[j] + 1, 4)
    mix = (
        (1 - vw[i]) * (1 - uw[j]) * x[:, :, v[i], u[j]]
        + (1 - vw[i]) * uw[j] * x[:, :, v[i], u1]
        + vw[i] * (1 - uw[j]) * x[:, :, v1, u[j]]
        + vw[i] * uw[j] * x[:, :, v1, u1]
    )
    numpy.testing.assert_allclose(y[:, :, i, j], mix, rtol=1e-12)
    gy = numpy.random.uniform(-1, 1, y.shape)
    gx = module.interpolate_grad_bilinear_cpu(gy, v, u, vw, uw, 4, 5)
    # The adjoint: <interpolate(x), gy> == <x, grad(gy)>.
    numpy.testing.assert_allclose((y * gy).sum(), (x * gx).sum(), rtol=1e-12)
    with pytest.raises(TypeError, match=r"interpolate_bilinear_gpu: expected a CuPy array, got ndarray"):
        module.interpolate_bilinear_gpu(x, v, u, vw, uw)
