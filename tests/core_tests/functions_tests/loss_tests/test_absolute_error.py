import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(*testing.product({"shape": [(4, 3), ()], "dtype": DTYPES}))
@testing.inject_backend_tests(None, BACKENDS)
class TestAbsoluteError(testing.FunctionTestCase):
    dodge_nondifferentiable = True

    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-2}
            self.check_backward_options = {"atol": 1e-2, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        return tuple(numpy.random.uniform(-1, 1, self.shape).astype(self.dtype) for _ in range(2))

    def forward(self, inputs, device):
        return (F.absolute_error(*inputs),)

    def forward_expected(self, inputs):
        x0, x1 = (x.astype(numpy.float64) for x in inputs)
        diff = x0 - x1
        y = numpy.sqrt(diff * diff)
        return (numpy.asarray(y, self.dtype),)


def test_absolute_error_rejects_mismatched_inputs():
    function = F.absolute_error
    with pytest.raises(type_check.InvalidType, match=r"AbsoluteError[\s\S]*x0.shape == x1.shape"):
        function(numpy.zeros(3, numpy.float32), numpy.zeros((3, 1), numpy.float32))
    with pytest.raises(type_check.InvalidType, match=r"AbsoluteError[\s\S]*x0.dtype == x1.dtype"):
        function(numpy.zeros(3, numpy.float16), numpy.zeros(3, numpy.float32))
    with pytest.raises(type_check.InvalidType, match=r"AbsoluteError[\s\S]*x0.dtype.kind == f"):
        function(numpy.zeros(3, numpy.int64), numpy.zeros(3, numpy.int64))
