import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]


@testing.parameterize(
    *testing.product(
        {
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
            "case": [
                # x shape, ksize, stride, pad
                ((2, 3, 4, 4), 2, None, 0),
                ((1, 2, 5, 4), 3, 2, 1),
                ((1, 2, 4, 5), (2, 3), (1, 2), (1, 0)),
            ],
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestAveragePooling2D(testing.FunctionTestCase):
    def setUp(self):
        self.shape, self.ksize, self.stride, self.pad = self.case
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-2}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.average_pooling_2d(inputs[0], self.ksize, self.stride, self.pad),)

    def forward_expected(self, inputs):
        x = inputs[0].astype(numpy.float64)
        pair = lambda v: (v, v) if isinstance(v, int) else v
        kh, kw = pair(self.ksize)
        sy, sx = pair(self.ksize if self.stride is None else self.stride)
        ph, pw = pair(self.pad)
        padded = numpy.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
        oh = (x.shape[2] + 2 * ph - kh) // sy + 1
        ow = (x.shape[3] + 2 * pw - kw) // sx + 1
        y = numpy.empty(x.shape[:2] + (oh, ow))
        for i in range(oh):
            for j in range(ow):
                # Padded zeros count: the divisor is always kh * kw.
                y[:, :, i, j] = padded[:, :, i * sy : i * sy + kh, j * sx : j * sx + kw].sum(axis=(2, 3)) / (kh * kw)
        return (y.astype(self.dtype),)


def test_rejects_wrong_ndim():
    with pytest.raises(type_check.InvalidType, match=r"AveragePooling2D[\s\S]*x.ndim == 4"):
        F.average_pooling_2d(numpy.ones((1, 2, 3), numpy.float32), 2)


def test_rejects_bad_stride():
    with pytest.raises(ValueError, match=r"average_pooling_2d: stride must be positive"):
        F.average_pooling_2d(numpy.ones((1, 1, 3, 3), numpy.float32), 2, 0)


def test_function_node_exposes_chainer_geometry_attributes():
    import chainer

    y = F.average_pooling_2d(chainer.Variable(numpy.ones((1, 1, 5, 5), numpy.float32)), 3, 2, 1)
    node = y.creator
    assert type(node).__name__ == "AveragePooling2D"
    assert (node.kh, node.kw, node.sy, node.sx, node.ph, node.pw) == (3, 3, 2, 2, 1, 1)
