"""Scaffolding shared by the ROI pooling and ROI align tests.

The average and the max variant of each operation see the same regions and the same bins
or sample points; only the reduction over a bin differs. This module holds the regions, the
naive bin and sample positions, and loops that build the reference output from a reduction
that the test module writes itself. Every reference here is plain Python and NumPy, written
from the documented definitions; nothing calls into ``chainer.functions``.
"""

import math

import numpy

BACKENDS = [{}, {"use_cuda": True}]
# Regions as (y1, x1, y2, x2): inside, fractional, partly outside and thinner than a pixel.
POOLING_ROIS = numpy.array(
    [[0.0, 0.0, 7.0, 6.0], [1.3, 2.2, 5.1, 4.4], [2.0, 1.0, 2.5, 9.0], [-3.0, 5.0, 1.0, 12.0]], "f"
)
ALIGN_ROIS = numpy.array([[0.0, 0.0, 5.0, 6.0], [1.3, 2.2, 4.1, 6.4], [-1.5, 3.0, 2.5, 8.0], [3.0, 0.5, 3.2, 0.9]], "f")
ROI_INDICES = numpy.array([0, 1, 1, 0], numpy.int32)


def _pair(value):
    return (value, value) if isinstance(value, int) else value


class ROITestMixin:
    """Mixin for a ``testing.FunctionTestCase`` (listed before it): the float16 tolerances of
    the ROI tests and uniform inputs. A plain class, so pytest does not collect it where a
    test module imports it.

    Subclasses set ``x_shape`` (inputs are uniform in [-1, 1) unless ``generate_inputs`` is
    overridden) and may set ``float16_forward_options = None`` where the forward result is
    exact in float16 (a maximum picks an input value).
    """

    x_shape = (2, 3, 6, 7)
    float16_forward_options = {"atol": 5e-3, "rtol": 5e-3}

    def setUp(self):
        if self.dtype == numpy.float16:
            if self.float16_forward_options is not None:
                self.check_forward_options = self.float16_forward_options
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.x_shape).astype(self.dtype),)


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


def pooling_reference(x, rois, roi_indices, outsize, scale, reduce):
    """ROI pooling in float64: ``reduce(patch)`` maps a (C, bh, bw) bin to (C,); empty bins are 0."""
    x = x.astype(numpy.float64)
    oh, ow = _pair(outsize)
    y = numpy.zeros((len(rois), x.shape[1], oh, ow))
    for r, roi in enumerate(rois):
        for i, j, hs, he, ws, we in naive_bins(roi, scale, oh, ow, *x.shape[2:]):
            if he > hs and we > ws:
                y[r, :, i, j] = reduce(x[roi_indices[r], :, hs:he, ws:we])
    return y


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
    # A ratio of None (overall or along one axis) means ceil(bin size) samples.
    gy = ratio[0] if ratio and ratio[0] is not None else max(math.ceil(bh), 1)
    gx = ratio[1] if ratio and ratio[1] is not None else max(math.ceil(bw), 1)
    for i in range(oh):
        for j in range(ow):
            points = [
                (y1 + i * bh + (a + 0.5) * bh / gy, x1 + j * bw + (b + 0.5) * bw / gx)
                for a in range(gy)
                for b in range(gx)
            ]
            yield i, j, points


def align_reference(x, rois, roi_indices, outsize, scale, sampling_ratio, reduce):
    """ROI align in float64: ``reduce(img, points)`` maps one channel's image and a bin's
    sample points [(y, x), ...] to the value of that bin."""
    x = x.astype(numpy.float64)
    oh, ow = _pair(outsize)
    ratio = _pair(sampling_ratio)
    y = numpy.zeros((len(rois), x.shape[1], oh, ow))
    for r, roi in enumerate(rois):
        for i, j, points in naive_samples(roi, scale, oh, ow, ratio):
            for c in range(x.shape[1]):
                y[r, c, i, j] = reduce(x[roi_indices[r], c], points)
    return y
