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
            "shapes": [((4, 3), ()), ((4, 3), (3,)), ((2, 3, 4), (3,)), ((2, 3, 4), (3, 4))],
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestPReLU(testing.FunctionTestCase):
    dodge_nondifferentiable = True

    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-7, "rtol": 1e-6}
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        x_shape, w_shape = self.shapes
        x = numpy.random.uniform(-1, 1, x_shape).astype(self.dtype)
        W = numpy.random.uniform(-1, 1, w_shape).astype(self.dtype)
        return x, W

    def forward(self, inputs, device):
        return (F.prelu(*inputs),)

    def forward_expected(self, inputs):
        x, W = (a.astype(numpy.float64) for a in inputs)
        y = numpy.empty_like(x)
        # Explicit loop over the batch and the W-aligned axes.
        for index in numpy.ndindex(*x.shape):
            w = W[index[1 : 1 + W.ndim]]
            y[index] = x[index] if x[index] >= 0 else w * x[index]
        return (y.astype(self.dtype),)


@pytest.mark.parametrize(
    "x_shape, w_shape, dtypes, message",
    [
        ((4, 3), (4,), "ff", r"x.shape\[1\] == W.shape\[0\]"),
        ((4,), (4,), "ff", r"x.ndim >= W.ndim \+ 1"),
        ((4, 3), (3,), "fd", r"W.dtype == x.dtype"),
        ((4, 3), (3,), "ii", r"x.dtype.kind == f"),
    ],
)
def test_prelu_invalid(x_shape, w_shape, dtypes, message):
    x = numpy.zeros(x_shape, dtypes[0])
    W = numpy.zeros(w_shape, dtypes[1])
    with pytest.raises(type_check.InvalidType, match=r"PReLU \(Forward\)[\s\S]*" + message):
        F.prelu(x, W)
