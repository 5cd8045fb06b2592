import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(*testing.product({"reduce": ["half_squared_sum", "no"], "dtype": DTYPES}))
@testing.inject_backend_tests(None, BACKENDS)
class TestCrossCovariance(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        y = numpy.random.uniform(-1, 1, (4, 3)).astype(self.dtype)
        z = numpy.random.uniform(-1, 1, (4, 2)).astype(self.dtype)
        return y, z

    def forward(self, inputs, device):
        return (F.cross_covariance(*inputs, reduce=self.reduce),)

    def forward_expected(self, inputs):
        y, z = (a.astype(numpy.float64) for a in inputs)
        # numpy.cov with bias=True is the 1/N covariance; the top-right block is y against z.
        m = y.shape[1]
        c = numpy.cov(numpy.concatenate([y, z], axis=1), rowvar=False, bias=True)[:m, m:]
        # reduce='no' gives the cross-covariance matrix; the loss is half the sum of its squares.
        if self.reduce == "half_squared_sum":
            return (numpy.asarray(0.5 * (c * c).sum(), self.dtype),)
        return (c.astype(self.dtype),)


def test_rejects_bad_inputs():
    y = numpy.zeros((4, 3), numpy.float32)
    with pytest.raises(type_check.InvalidType, match=r"CrossCovariance[\s\S]*y.shape\[0\] == z.shape\[0\]"):
        F.cross_covariance(y, numpy.zeros((3, 3), numpy.float32))
    with pytest.raises(type_check.InvalidType, match=r"CrossCovariance[\s\S]*y.dtype == z.dtype"):
        F.cross_covariance(y, numpy.zeros((4, 3), numpy.float64))
    with pytest.raises(type_check.InvalidType, match=r"CrossCovariance[\s\S]*z.ndim == 2"):
        F.cross_covariance(y, numpy.zeros(4, numpy.float32))
    with pytest.raises(ValueError, match=r"cross_covariance: only 'half_squared_sum' and 'no' are valid for reduce"):
        F.cross_covariance(y, y, reduce="no_such")
