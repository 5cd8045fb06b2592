import math

import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
ROIS = numpy.array([[0.0, 0.0, 7.0, 6.0], [1.3, 2.2, 5.1, 4.4], [2.0, 1.0, 2.5, 9.0], [-3.0, 5.0, 1.0, 12.0]], "f")
ROI_INDICES = numpy.array([0, 1, 1, 0], numpy.int32)


def naive_bins(roi, scale, out_h, out_w, h, w):
    """Pixel ranges of each bin: floor(start)..ceil(end) of equal float bins, clipped."""
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
class TestROIAveragePooling2D(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, (2, 3, 6, 7)).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.roi_average_pooling_2d(inputs[0], ROIS, ROI_INDICES, self.outsize, self.scale),)

    def forward_expected(self, inputs):
        x = inputs[0].astype(numpy.float64)
        oh, ow = (self.outsize, self.outsize) if isinstance(self.outsize, int) else self.outsize
        y = numpy.zeros((len(ROIS), x.shape[1], oh, ow))
        for r, roi in enumerate(ROIS):
            for i, j, hs, he, ws, we in naive_bins(roi, self.scale, oh, ow, *x.shape[2:]):
                if he > hs and we > ws:
                    y[r, :, i, j] = x[ROI_INDICES[r], :, hs:he, ws:we].mean(axis=(1, 2))
        return (y.astype(self.dtype),)


def test_rejects_bad_rois():
    x = numpy.ones((1, 1, 4, 4), "f")
    with pytest.raises(type_check.InvalidType, match=r"ROIAveragePooling2D[\s\S]*rois.shape\[1\] == 4"):
        F.roi_average_pooling_2d(x, numpy.zeros((2, 5), "f"), numpy.zeros(2, "i"), 2, 1.0)
    with pytest.raises(type_check.InvalidType, match=r"rois.shape\[0\] == roi_indices.shape\[0\]"):
        F.roi_average_pooling_2d(x, numpy.zeros((2, 4), "f"), numpy.zeros(3, "i"), 2, 1.0)
    with pytest.raises(type_check.InvalidType, match=r"roi_indices.dtype.kind == i"):
        F.roi_average_pooling_2d(x, numpy.zeros((2, 4), "f"), numpy.zeros(2, "f"), 2, 1.0)


def test_rejects_roi_index_outside_batch():
    with pytest.raises(ValueError, match=r"roi_indices must lie in \[0, 1\)"):
        F.roi_average_pooling_2d(numpy.ones((1, 1, 4, 4), "f"), numpy.zeros((1, 4), "f"), numpy.ones(1, "i"), 2, 1.0)


def test_rejects_bad_scale_and_outsize():
    x, rois, idx = numpy.ones((1, 1, 4, 4), "f"), numpy.zeros((1, 4), "f"), numpy.zeros(1, "i")
    with pytest.raises(ValueError, match=r"spatial_scale must be positive"):
        F.roi_average_pooling_2d(x, rois, idx, 2, 0.0)
    with pytest.raises(ValueError, match=r"outsize must be positive"):
        F.roi_average_pooling_2d(x, rois, idx, 0, 1.0)
