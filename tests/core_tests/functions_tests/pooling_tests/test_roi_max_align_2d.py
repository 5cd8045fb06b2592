import math

import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
ROIS = numpy.array([[0.0, 0.0, 5.0, 6.0], [1.3, 2.2, 4.1, 6.4], [-1.5, 3.0, 2.5, 8.0], [3.0, 0.5, 3.2, 0.9]], "f")
ROI_INDICES = numpy.array([0, 1, 1, 0], numpy.int32)


def interpolate(img, y, x):
    """RoIAlign's bilinear interpolation: zero beyond one pixel outside, clamped otherwise."""
    h, w = img.shape
    if y < -1.0 or y > h or x < -1.0 or x > w:
        return 0.0
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = int(y), int(x)
    if y0 >= h - 1:
        y0 = y1 = h - 1
        y = float(y0)
    else:
        y1 = y0 + 1
    if x0 >= w - 1:
        x0 = x1 = w - 1
        x = float(x0)
    else:
        x1 = x0 + 1
    ly, lx = y - y0, x - x0
    return (
        (1 - ly) * (1 - lx) * img[y0, x0]
        + (1 - ly) * lx * img[y0, x1]
        + ly * (1 - lx) * img[y1, x0]
        + ly * lx * img[y1, x1]
    )


def naive_samples(roi, scale, oh, ow, ratio):
    """Sample positions of every bin: (i, j, [(y, x), ...])."""
    y1, x1, y2, x2 = (float(v) * scale for v in roi)
    rh, rw = max(y2 - y1, 1.0), max(x2 - x1, 1.0)
    bh, bw = rh / oh, rw / ow
    gy = ratio[0] if ratio else max(math.ceil(bh), 1)
    gx = ratio[1] if ratio else max(math.ceil(bw), 1)
    for i in range(oh):
        for j in range(ow):
            points = [
                (y1 + i * bh + (a + 0.5) * bh / gy, x1 + j * bw + (b + 0.5) * bw / gx)
                for a in range(gy)
                for b in range(gx)
            ]
            yield i, j, points


@testing.parameterize(
    *testing.product(
        {
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
            "outsize": [2, (3, 2)],
            "scale": [1.0, 0.7],
            "sampling_ratio": [None, (2, 3)],
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestROIMaxAlign2D(testing.FunctionTestCase):
    dodge_nondifferentiable = True

    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        # A tilted plane plus a little noise per channel: the samples of a bin differ
        # clearly, so the winner does not switch under the numerical perturbation.
        n, c, h, w = 2, 2, 5, 7
        slope = numpy.random.choice([-1, 1], (n, c, 2, 1, 1)) * numpy.random.uniform(0.5, 1, (n, c, 2, 1, 1))
        rows, cols = numpy.meshgrid(numpy.arange(h), numpy.arange(w), indexing="ij")
        x = slope[:, :, 0] * rows + slope[:, :, 1] * cols + numpy.random.uniform(-0.05, 0.05, (n, c, h, w))
        return (x.astype(self.dtype),)

    def forward(self, inputs, device):
        y = F.roi_max_align_2d(inputs[0], ROIS, ROI_INDICES, self.outsize, self.scale, self.sampling_ratio)
        return (y,)

    def forward_expected(self, inputs):
        x = inputs[0].astype(numpy.float64)
        oh, ow = (self.outsize, self.outsize) if isinstance(self.outsize, int) else self.outsize
        ratio = self.sampling_ratio
        ratio = (ratio, ratio) if isinstance(ratio, int) else ratio
        y = numpy.zeros((len(ROIS), x.shape[1], oh, ow))
        for r, roi in enumerate(ROIS):
            for i, j, points in naive_samples(roi, self.scale, oh, ow, ratio):
                for c in range(x.shape[1]):
                    img = x[ROI_INDICES[r], c]
                    inside = [
                        interpolate(img, py, px)
                        for py, px in points
                        if -1.0 <= py <= img.shape[0] and -1.0 <= px <= img.shape[1]
                    ]
                    y[r, c, i, j] = max(inside) if inside else 0.0
        return (y.astype(self.dtype),)


def test_rejects_bad_sampling_ratio():
    x, rois, idx = numpy.ones((1, 1, 4, 4), "f"), numpy.zeros((1, 4), "f"), numpy.zeros(1, "i")
    with pytest.raises(ValueError, match=r"roi_max_align_2d: sampling_ratio must be an int or a sequence of 2"):
        F.roi_max_align_2d(x, rois, idx, 2, 1.0, (1, 2, 3))


def test_rejects_bad_roi_indices():
    with pytest.raises(type_check.InvalidType, match=r"ROIMaxAlign2D[\s\S]*roi_indices.ndim == 1"):
        F.roi_max_align_2d(numpy.ones((1, 1, 4, 4), "f"), numpy.zeros((1, 4), "f"), numpy.zeros((1, 1), "i"), 2, 1.0)
