import math

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _reference(x, grid):
    """Bilinear interpolation where pixels outside the image are zero."""
    n, c, h, w = x.shape
    out = numpy.zeros((n, c) + grid.shape[2:])

    def pixel(b, yy, xx):
        if 0 <= yy < h and 0 <= xx < w:
            return x[b, :, yy, xx]
        return numpy.zeros(c)

    for b, i, j in numpy.ndindex(n, *grid.shape[2:]):
        u = (grid[b, 0, i, j] + 1) * (w - 1) / 2
        v = (grid[b, 1, i, j] + 1) * (h - 1) / 2
        u0, v0 = math.floor(u), math.floor(v)
        fu, fv = u - u0, v - v0
        out[b, :, i, j] = (
            pixel(b, v0, u0) * (1 - fu) * (1 - fv)
            + pixel(b, v0, u0 + 1) * fu * (1 - fv)
            + pixel(b, v0 + 1, u0) * (1 - fu) * fv
            + pixel(b, v0 + 1, u0 + 1) * fu * fv
        )
    return out


@testing.parameterize(
    *testing.product(
        {"case": [{"x": (2, 3, 4, 5), "out": (3, 2)}, {"x": (1, 1, 3, 3), "out": (4, 4)}], "dtype": DTYPES}
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestSpatialTransformerSampler(testing.FunctionTestCase):
    # Bilinear interpolation has kinks at pixel boundaries.
    dodge_nondifferentiable = True
    # Chainer 7.8.1 has no double backprop for the sampler either.
    skip_double_backward_test = True

    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 2e-2, "rtol": 2e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-5, "rtol": 1e-4}
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}

    def generate_inputs(self):
        n = self.case["x"][0]
        x = numpy.random.uniform(-1, 1, self.case["x"]).astype(self.dtype)
        # Some points fall outside the image (|coordinate| > 1), up to beyond the padding.
        grid = numpy.random.uniform(-1.6, 1.6, (n, 2) + self.case["out"]).astype(self.dtype)
        return x, grid

    def forward(self, inputs, device):
        return (F.spatial_transformer_sampler(*inputs),)

    def forward_expected(self, inputs):
        x, grid = (a.astype(numpy.float64) for a in inputs)
        return (_reference(x, grid).astype(self.dtype),)


def test_spatial_transformer_sampler_samples_pixel_centres():
    x = numpy.arange(6, dtype="f").reshape(1, 1, 2, 3)
    grid = numpy.array([[[[-1.0, 0.0, 1.0]], [[-1.0, 1.0, 1.0]]]], "f")  # (x, y) pairs
    y = F.spatial_transformer_sampler(x, grid)
    numpy.testing.assert_allclose(y.array[0, 0, 0], [0, 4, 5])


def test_spatial_transformer_sampler_is_zero_far_outside():
    x = numpy.ones((1, 1, 2, 2), "f")
    grid = numpy.full((1, 2, 1, 1), 5.0, "f")
    xv = chainer.Variable(x)
    gv = chainer.Variable(grid)
    y = F.spatial_transformer_sampler(xv, gv)
    assert y.array.item() == 0
    y.grad = numpy.ones_like(y.array)
    y.backward()
    numpy.testing.assert_array_equal(gv.grad, 0)
    numpy.testing.assert_array_equal(xv.grad, 0)


def test_spatial_transformer_sampler_double_backward_is_not_supported():
    x = chainer.Variable(numpy.random.uniform(size=(1, 1, 3, 3)).astype("f"))
    grid = chainer.Variable(numpy.random.uniform(-0.9, 0.9, (1, 2, 2, 2)).astype("f"))
    y = F.spatial_transformer_sampler(x, grid)
    gx, ggrid = chainer.grad([y], [x, grid], grad_outputs=[numpy.ones(y.shape, "f")], enable_double_backprop=True)
    with pytest.raises(NotImplementedError, match="does not support double backpropagation"):
        F.sum(gx).backward()


def test_spatial_transformer_sampler_invalid():
    x = numpy.zeros((2, 1, 3, 3), "f")
    with pytest.raises(
        type_check.InvalidType, match=r"SpatialTransformerSampler \(Forward\)[\s\S]*grid.shape\[0\] == x.shape\[0\]"
    ):
        F.spatial_transformer_sampler(x, numpy.zeros((1, 2, 2, 2), "f"))
    with pytest.raises(
        type_check.InvalidType, match=r"SpatialTransformerSampler \(Forward\)[\s\S]*grid.shape\[1\] == 2"
    ):
        F.spatial_transformer_sampler(x, numpy.zeros((2, 3, 2, 2), "f"))
    with pytest.raises(
        type_check.InvalidType, match=r"SpatialTransformerSampler \(Forward\)[\s\S]*grid.dtype == x.dtype"
    ):
        F.spatial_transformer_sampler(x, numpy.zeros((2, 2, 2, 2), "d"))
    with pytest.raises(ValueError, match="use_cudnn argument is not supported anymore"):
        F.spatial_transformer_sampler(x, numpy.zeros((2, 2, 2, 2), "f"), use_cudnn="never")
