import numpy
import pytest
from _roi_testlib import ALIGN_ROIS, BACKENDS, ROI_INDICES, ROITestMixin, align_reference, interpolate

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check


def average_of_samples(img, points):
    # Every sample counts, those beyond one pixel outside the image as zero.
    return sum(interpolate(img, py, px) for py, px in points) / len(points)


@testing.parameterize(
    *testing.product(
        {
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
            "outsize": [2, (3, 2)],
            "scale": [1.0, 0.7, numpy.int32(2)],
            "sampling_ratio": [None, 2, (1, 3), (None, 2)],
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestROIAverageAlign2D(ROITestMixin, testing.FunctionTestCase):
    x_shape = (2, 2, 5, 7)

    def forward(self, inputs, device):
        y = F.roi_average_align_2d(
            inputs[0], device.send(ALIGN_ROIS), device.send(ROI_INDICES), self.outsize, self.scale, self.sampling_ratio
        )
        return (y,)

    def forward_expected(self, inputs):
        y = align_reference(
            inputs[0], ALIGN_ROIS, ROI_INDICES, self.outsize, self.scale, self.sampling_ratio, average_of_samples
        )
        return (y.astype(self.dtype),)


def test_rejects_bad_sampling_ratio():
    x, rois, idx = numpy.ones((1, 1, 4, 4), "f"), numpy.zeros((1, 4), "f"), numpy.zeros(1, "i")
    with pytest.raises(ValueError, match=r"roi_average_align_2d: sampling_ratio must be positive"):
        F.roi_average_align_2d(x, rois, idx, 2, 1.0, 0)


def test_rejects_bad_rois():
    with pytest.raises(type_check.InvalidType, match=r"ROIAverageAlign2D[\s\S]*rois.ndim == 2"):
        F.roi_average_align_2d(numpy.ones((1, 1, 4, 4), "f"), numpy.zeros(4, "f"), numpy.zeros(1, "i"), 2, 1.0)
