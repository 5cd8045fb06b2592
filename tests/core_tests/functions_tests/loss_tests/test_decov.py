import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(*testing.product({"reduce": ["half_squared_sum", "no"], "dtype": DTYPES}))
@testing.inject_backend_tests(None, BACKENDS)
class TestDeCov(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, (4, 3)).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.decov(*inputs, reduce=self.reduce),)

    def forward_expected(self, inputs):
        h = inputs[0].astype(numpy.float64)
        n, m = h.shape
        mean = h.mean(axis=0)
        # reduce='no' gives the covariance matrix with a zero diagonal; the loss is half
        # the sum of its squares.
        cov = numpy.zeros((m, m))
        for i in range(m):
            for j in range(m):
                if i != j:
                    cov[i, j] = sum((h[k, i] - mean[i]) * (h[k, j] - mean[j]) for k in range(n)) / n
        if self.reduce == "half_squared_sum":
            return (numpy.asarray(0.5 * (cov * cov).sum(), self.dtype),)
        return (cov.astype(self.dtype),)


def test_rejects_bad_inputs():
    with pytest.raises(type_check.InvalidType, match=r"DeCov[\s\S]*h.ndim == 2"):
        F.decov(numpy.zeros(3, numpy.float32))
    with pytest.raises(type_check.InvalidType, match=r"DeCov[\s\S]*h.dtype.kind == f"):
        F.decov(numpy.zeros((2, 3), numpy.int32))
    with pytest.raises(ValueError, match=r"decov: only 'half_squared_sum' and 'no' are valid for reduce"):
        F.decov(numpy.zeros((2, 3), numpy.float32), reduce="mean")
