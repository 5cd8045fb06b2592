import numpy
import pytest
from _roi_testlib import BACKENDS, POOLING_ROIS, ROI_INDICES, ROITestMixin, pooling_reference

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check


@testing.parameterize(
    *testing.product(
        {"dtype": [numpy.float16, numpy.float32, numpy.float64], "outsize": [2, (3, 2)], "scale": [1.0, 0.6]}
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestROIAveragePooling2D(ROITestMixin, testing.FunctionTestCase):
    def forward(self, inputs, device):
        return (
            F.roi_average_pooling_2d(
                inputs[0], device.send(POOLING_ROIS), device.send(ROI_INDICES), self.outsize, self.scale
            ),
        )

    def forward_expected(self, inputs):
        y = pooling_reference(
            inputs[0], POOLING_ROIS, ROI_INDICES, self.outsize, self.scale, lambda patch: patch.mean(axis=(1, 2))
        )
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
