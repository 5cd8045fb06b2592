import numpy
import pytest
from _roi_testlib import ALIGN_ROIS, BACKENDS, ROI_INDICES, ROITestMixin, align_reference, interpolate

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check


def max_of_samples(img, points):
    # Samples beyond one pixel outside the image take no part; a bin without any is zero.
    h, w = img.shape
    inside = [interpolate(img, py, px) for py, px in points if -1.0 <= py <= h and -1.0 <= px <= w]
    return max(inside) if inside else 0.0


@testing.parameterize(
    *testing.product(
        {
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
            "outsize": [2, (3, 2)],
            "scale": [1.0, 0.7, numpy.int32(2)],
            "sampling_ratio": [None, (2, 3), (None, 2)],
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestROIMaxAlign2D(ROITestMixin, testing.FunctionTestCase):
    dodge_nondifferentiable = True

    def generate_inputs(self):
        # A tilted plane plus a little noise per channel: the samples of a bin differ
        # clearly, so the winner does not switch under the numerical perturbation.
        n, c, h, w = 2, 2, 5, 7
        slope = numpy.random.choice([-1, 1], (n, c, 2, 1, 1)) * numpy.random.uniform(0.5, 1, (n, c, 2, 1, 1))
        rows, cols = numpy.meshgrid(numpy.arange(h), numpy.arange(w), indexing="ij")
        x = slope[:, :, 0] * rows + slope[:, :, 1] * cols + numpy.random.uniform(-0.05, 0.05, (n, c, h, w))
        return (x.astype(self.dtype),)

    def forward(self, inputs, device):
        y = F.roi_max_align_2d(
            inputs[0], device.send(ALIGN_ROIS), device.send(ROI_INDICES), self.outsize, self.scale, self.sampling_ratio
        )
        return (y,)

    def forward_expected(self, inputs):
        y = align_reference(
            inputs[0], ALIGN_ROIS, ROI_INDICES, self.outsize, self.scale, self.sampling_ratio, max_of_samples
        )
        return (y.astype(self.dtype),)


def test_rejects_bad_sampling_ratio():
    x, rois, idx = numpy.ones((1, 1, 4, 4), "f"), numpy.zeros((1, 4), "f"), numpy.zeros(1, "i")
    with pytest.raises(ValueError, match=r"roi_max_align_2d: sampling_ratio must be an int or a sequence of 2"):
        F.roi_max_align_2d(x, rois, idx, 2, 1.0, (1, 2, 3))


def test_rejects_bad_roi_indices():
    with pytest.raises(type_check.InvalidType, match=r"ROIMaxAlign2D[\s\S]*roi_indices.ndim == 1"):
        F.roi_max_align_2d(numpy.ones((1, 1, 4, 4), "f"), numpy.zeros((1, 4), "f"), numpy.zeros((1, 1), "i"), 2, 1.0)
