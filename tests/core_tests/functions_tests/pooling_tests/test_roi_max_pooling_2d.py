import math

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
ROIS = numpy.array([[0.0, 0.0, 7.0, 6.0], [1.3, 2.2, 5.1, 4.4], [2.0, 1.0, 2.5, 9.0], [-3.0, 5.0, 1.0, 12.0]], "f")
ROI_INDICES = numpy.array([0, 1, 1, 0], numpy.int32)


def naive_bins(roi, scale, out_h, out_w, h, w):
    y1, x1, y2, x2 = (float(v) * scale for v in roi)
    bin_h = max(y2 - y1, 1.0) / out_h
    bin_w = max(x2 - x1, 1.0) / out_w
    for i in range(out_h):
        for j in range(out_w):
            hs = min(max(math.floor(y1 + i * bin_h), 0), h)
            he = min(max(math.ceil(y1 + (i + 1) * bin_h), 0), h)
            ws = min(max(math.floor(x1 + j * bin_w), 0), w)
            we = min(max(math.ceil(x1 + (j + 1) * bin_w), 0), w)
            yield i, j, hs, he, ws, we


@testing.parameterize(
    *testing.product(
        {"dtype": [numpy.float16, numpy.float32, numpy.float64], "outsize": [2, (3, 2)], "scale": [1.0, 0.6]}
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestROIMaxPooling2D(testing.FunctionTestCase):
    dodge_nondifferentiable = True

    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        shape = (2, 3, 6, 7)
        values = numpy.random.permutation(int(numpy.prod(shape))).reshape(shape)
        return ((values * 0.125 - 10).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.roi_max_pooling_2d(inputs[0], ROIS, ROI_INDICES, self.outsize, self.scale),)

    def forward_expected(self, inputs):
        x = inputs[0].astype(numpy.float64)
        oh, ow = (self.outsize, self.outsize) if isinstance(self.outsize, int) else self.outsize
        y = numpy.zeros((len(ROIS), x.shape[1], oh, ow))
        for r, roi in enumerate(ROIS):
            for i, j, hs, he, ws, we in naive_bins(roi, self.scale, oh, ow, *x.shape[2:]):
                if he > hs and we > ws:
                    y[r, :, i, j] = x[ROI_INDICES[r], :, hs:he, ws:we].max(axis=(1, 2))
        return (y.astype(self.dtype),)


def test_empty_bin_gives_zero_and_no_gradient():
    x = chainer.Variable(numpy.arange(16, dtype="f").reshape(1, 1, 4, 4) + 1)
    rois = numpy.array([[10.0, 10.0, 12.0, 12.0]], "f")  # entirely outside the image
    y = F.roi_max_pooling_2d(x, rois, numpy.zeros(1, "i"), 2, 1.0)
    numpy.testing.assert_array_equal(y.array, numpy.zeros((1, 1, 2, 2)))
    F.sum(y).backward()
    numpy.testing.assert_array_equal(x.grad, numpy.zeros_like(x.array))


def test_rejects_wrong_ndim():
    with pytest.raises(type_check.InvalidType, match=r"ROIMaxPooling2D[\s\S]*x.ndim == 4"):
        F.roi_max_pooling_2d(numpy.ones((1, 4, 4), "f"), numpy.zeros((1, 4), "f"), numpy.zeros(1, "i"), 2, 1.0)
