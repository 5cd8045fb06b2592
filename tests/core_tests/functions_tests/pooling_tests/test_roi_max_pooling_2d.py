import numpy
import pytest
from _roi_testlib import BACKENDS, POOLING_ROIS, ROI_INDICES, ROITestMixin, pooling_reference

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check


@testing.parameterize(
    *testing.product(
        {"dtype": [numpy.float16, numpy.float32, numpy.float64], "outsize": [2, (3, 2)], "scale": [1.0, 0.6]}
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestROIMaxPooling2D(ROITestMixin, testing.FunctionTestCase):
    dodge_nondifferentiable = True
    float16_forward_options = None  # the maximum of a bin is one of the inputs, exact in float16

    def generate_inputs(self):
        # Distinct values a step of 0.125 apart (exact in float16): no ties within a bin.
        shape = (2, 3, 6, 7)
        values = numpy.random.permutation(int(numpy.prod(shape))).reshape(shape)
        return ((values * 0.125 - 10).astype(self.dtype),)

    def forward(self, inputs, device):
        return (
            F.roi_max_pooling_2d(
                inputs[0], device.send(POOLING_ROIS), device.send(ROI_INDICES), self.outsize, self.scale
            ),
        )

    def forward_expected(self, inputs):
        y = pooling_reference(
            inputs[0], POOLING_ROIS, ROI_INDICES, self.outsize, self.scale, lambda patch: patch.max(axis=(1, 2))
        )
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
