import _math_testlib as testlib
import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check


@testing.parameterize(
    *testing.product({"shape": [(3, 2), (2, 3, 4), (1, 1)], "dtype": [numpy.float16, numpy.float32, numpy.float64]})
)
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestBatchL2NormSquared(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-3}
            self.check_backward_options = {"atol": 1e-2, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.batch_l2_norm_squared(inputs[0]),)

    def forward_expected(self, inputs):
        (x,) = inputs
        expected = [sum(float(v) ** 2 for v in example.ravel()) for example in x]
        return (numpy.array(expected, self.dtype),)


def test_batch_l2_norm_squared_rejects_one_dimensional_input():
    with pytest.raises(type_check.InvalidType, match=r"BatchL2NormSquared \(Forward\)[\s\S]*x\.ndim >= 2"):
        F.batch_l2_norm_squared(numpy.ones(3, numpy.float32))


def test_batch_l2_norm_squared_rejects_integer_input():
    with pytest.raises(type_check.InvalidType, match=r"x\.dtype\.kind == f"):
        F.batch_l2_norm_squared(numpy.ones((2, 3), numpy.int32))
