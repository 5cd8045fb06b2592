import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(*testing.product({"output_shape": [(3, 4), (1, 2)], "dtype": DTYPES}))
@testing.inject_backend_tests(None, BACKENDS)
class TestSpatialTransformerGrid(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 1e-2, "rtol": 5e-2}
        else:
            self.check_backward_options = {"atol": 1e-5, "rtol": 1e-4}
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, (2, 2, 3)).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.spatial_transformer_grid(inputs[0], self.output_shape),)

    def forward_expected(self, inputs):
        theta = inputs[0].astype(numpy.float64)
        h, w = self.output_shape
        out = numpy.empty((theta.shape[0], 2, h, w))
        for b, i, j in numpy.ndindex(theta.shape[0], h, w):
            y_t = -1 + 2 * i / (h - 1) if h > 1 else -1.0
            x_t = -1 + 2 * j / (w - 1) if w > 1 else -1.0
            out[b, :, i, j] = theta[b] @ numpy.array([x_t, y_t, 1.0])
        return (out.astype(self.dtype),)


def test_spatial_transformer_grid_identity():
    theta = numpy.array([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]], "f")
    grid = F.spatial_transformer_grid(theta, (2, 3)).array
    numpy.testing.assert_allclose(grid[0, 0], [[-1, 0, 1], [-1, 0, 1]])
    numpy.testing.assert_allclose(grid[0, 1], [[-1, -1, -1], [1, 1, 1]])


def test_spatial_transformer_grid_invalid():
    with pytest.raises(type_check.InvalidType, match=r"SpatialTransformerGrid \(Forward\)[\s\S]*theta.shape\[2\] == 3"):
        F.spatial_transformer_grid(numpy.zeros((1, 2, 2), "f"), (2, 2))
    with pytest.raises(type_check.InvalidType, match=r"SpatialTransformerGrid \(Forward\)[\s\S]*theta.dtype.kind == f"):
        F.spatial_transformer_grid(numpy.zeros((1, 2, 3), "i"), (2, 2))
    with pytest.raises(ValueError, match="use_cudnn argument is not supported anymore"):
        F.spatial_transformer_grid(numpy.zeros((1, 2, 3), "f"), (2, 2), use_cudnn="always")
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        F.spatial_transformer_grid(numpy.zeros((1, 2, 3), "f"), (2, 2), foo=1)
    with pytest.raises(ValueError, match="spatial_transformer_grid: output_shape must be two positive ints"):
        F.spatial_transformer_grid(numpy.zeros((1, 2, 3), "f"), (2, 2, 2))
