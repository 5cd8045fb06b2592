import math

import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
ROIS = numpy.array(
    [[0, 1, 1, 6, 4], [1, 2, 0, 7, 5], [1, 3, 1, 5, 2.5], [0, 4.4, 0.6, 5.6, 6], [1, -2, -3, 1, 2]], numpy.float32
)


def round_half_away(v):
    return math.floor(v + 0.5) if v >= 0 else -math.floor(-v + 0.5)


@testing.parameterize(
    *testing.product(
        {"dtype": [numpy.float16, numpy.float32, numpy.float64], "outsize": [(2, 2), (3, 1)], "scale": [1.0, 0.6]}
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestROIPooling2D(testing.FunctionTestCase):
    dodge_nondifferentiable = True

    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        shape = (2, 3, 5, 7)
        values = numpy.random.permutation(int(numpy.prod(shape))).reshape(shape)
        return ((values * 0.125 - 10).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.roi_pooling_2d(inputs[0], device.send(ROIS), self.outsize[0], self.outsize[1], self.scale),)

    def forward_expected(self, inputs):
        x = inputs[0].astype(numpy.float64)
        _, c, h, w = x.shape
        oh, ow = self.outsize
        y = numpy.zeros((len(ROIS), c, oh, ow))
        for r, roi in enumerate(ROIS):
            b = int(roi[0])
            x1, y1, x2, y2 = (round_half_away(float(v) * self.scale) for v in roi[1:])
            rh, rw = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
            for i in range(oh):
                for j in range(ow):
                    hs = min(max(math.floor(i * rh / oh) + y1, 0), h)
                    he = min(max(math.ceil((i + 1) * rh / oh) + y1, 0), h)
                    ws = min(max(math.floor(j * rw / ow) + x1, 0), w)
                    we = min(max(math.ceil((j + 1) * rw / ow) + x1, 0), w)
                    if he > hs and we > ws:
                        y[r, :, i, j] = x[b, :, hs:he, ws:we].max(axis=(1, 2))
        return (y.astype(self.dtype),)


def test_rejects_rois_without_batch_column():
    with pytest.raises(type_check.InvalidType, match=r"ROIPooling2D[\s\S]*rois.shape\[1\] == 5"):
        F.roi_pooling_2d(numpy.ones((1, 1, 4, 4), "f"), numpy.zeros((1, 4), "f"), 2, 2, 1.0)


def test_rejects_bad_batch_index():
    with pytest.raises(ValueError, match=r"roi_pooling_2d: rois\[:, 0\] must be whole batch indices in \[0, 1\)"):
        F.roi_pooling_2d(numpy.ones((1, 1, 4, 4), "f"), numpy.array([[1, 0, 0, 2, 2]], "f"), 2, 2, 1.0)
