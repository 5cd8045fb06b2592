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
class TestSwish(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        x_shape, beta_shape = self.shapes
        x = numpy.random.uniform(-2, 2, x_shape).astype(self.dtype)
        beta = numpy.random.uniform(-2, 2, beta_shape).astype(self.dtype)
        return x, beta

    def forward(self, inputs, device):
        return (F.swish(*inputs),)

    def forward_expected(self, inputs):
        x, beta = (a.astype(numpy.float64) for a in inputs)
        b = beta.reshape((1,) + beta.shape + (1,) * (x.ndim - 1 - beta.ndim))
        return ((x / (1 + numpy.exp(-b * x))).astype(self.dtype),)


@pytest.mark.parametrize(
    "x_shape, beta_shape, dtypes, message",
    [
        ((4, 3), (4,), "ff", r"x.shape\[1\] == beta.shape\[0\]"),
        ((4,), (4,), "ff", r"x.ndim >= beta.ndim \+ 1"),
        ((4, 3), (3,), "fd", r"beta.dtype == x.dtype"),
        ((4, 3), (3,), "ii", r"x.dtype.kind == f"),
    ],
)
def test_swish_invalid(x_shape, beta_shape, dtypes, message):
    x = numpy.zeros(x_shape, dtypes[0])
    beta = numpy.zeros(beta_shape, dtypes[1])
    with pytest.raises(type_check.InvalidType, match=r"Swish \(Forward\)[\s\S]*" + message):
        F.swish(x, beta)
