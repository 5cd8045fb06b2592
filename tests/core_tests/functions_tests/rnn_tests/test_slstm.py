import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]


def _sigmoid(v):
    return 1 / (1 + numpy.exp(-v))


def _slstm_reference(c1, c2, x1, x2):
    c1, c2, x1, x2 = (v.astype(numpy.float64) for v in (c1, c2, x1, x2))
    # Each child has its own input term; the output gate sums the children's pre-activations.
    a1, a2 = numpy.tanh(x1[:, 0::4]), numpy.tanh(x2[:, 0::4])
    i1, i2 = _sigmoid(x1[:, 1::4]), _sigmoid(x2[:, 1::4])
    f1 = _sigmoid(x1[:, 2::4])
    f2 = _sigmoid(x2[:, 2::4])
    o = _sigmoid(x1[:, 3::4] + x2[:, 3::4])
    c = a1 * i1 + a2 * i2 + f1 * c1 + f2 * c2
    return c, o * numpy.tanh(c)


@testing.parameterize(
    *testing.product({"dtype": [numpy.float16, numpy.float32, numpy.float64], "c_shape": [(3, 2), (2, 2, 3), (1, 1)]})
)
@testing.inject_backend_tests(None, BACKENDS)
class TestSLSTM(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_double_backward_options = {"atol": 1e-2, "rtol": 1e-1}
        else:
            self.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
            self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        x_shape = (self.c_shape[0], 4 * self.c_shape[1]) + self.c_shape[2:]
        c1 = numpy.random.uniform(-1, 1, self.c_shape).astype(self.dtype)
        c2 = numpy.random.uniform(-1, 1, self.c_shape).astype(self.dtype)
        x1 = numpy.random.uniform(-1, 1, x_shape).astype(self.dtype)
        x2 = numpy.random.uniform(-1, 1, x_shape).astype(self.dtype)
        return c1, c2, x1, x2

    def forward(self, inputs, device):
        return F.slstm(*inputs)

    def forward_expected(self, inputs):
        return tuple(v.astype(self.dtype) for v in _slstm_reference(*inputs))


@pytest.mark.parametrize(
    "shapes, message",
    [
        (((2, 3), (2, 3), (2, 11), (2, 11)), r"x1.shape\[1\] == 4 \* c_prev1.shape\[1\]"),
        (((2, 3), (2, 4), (2, 12), (2, 12)), r"c_prev2.shape == c_prev1.shape"),
        (((2, 3), (2, 3), (2, 12), (1, 12)), r"x2.shape == x1.shape"),
        (((2, 3), (2, 3), (1, 12), (1, 12)), r"x1.shape\[0\] == c_prev1.shape\[0\]"),
    ],
)
def test_slstm_invalid_shapes(shapes, message):
    arrays = [numpy.zeros(s, numpy.float32) for s in shapes]
    with pytest.raises(type_check.InvalidType, match=r"SLSTM \(Forward\)[\s\S]*" + message):
        F.slstm(*arrays)


def test_slstm_invalid_dtype():
    arrays = [numpy.zeros((2, 3), numpy.float32)] * 2 + [numpy.zeros((2, 12), numpy.float64)] * 2
    with pytest.raises(type_check.InvalidType, match=r"x1.dtype == c_prev1.dtype"):
        F.slstm(*arrays)
