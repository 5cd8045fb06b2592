import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(*testing.product({"norm": ["L1", "L2"], "reduce": ["mean", "no"], "dtype": DTYPES}))
@testing.inject_backend_tests(None, BACKENDS)
class TestHinge(testing.FunctionTestCase):
    dodge_nondifferentiable = True

    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
        self.check_double_backward_options = self.check_backward_options
        self.t = numpy.array([0, 2, 1, 2], numpy.int32)

    def generate_inputs(self):
        return numpy.random.uniform(-2, 2, (4, 3)).astype(self.dtype), self.t

    def forward(self, inputs, device):
        return (F.hinge(*inputs, norm=self.norm, reduce=self.reduce),)

    def forward_expected(self, inputs):
        x, t = inputs
        x = x.astype(numpy.float64)
        loss = numpy.empty(x.shape)
        p = 1 if self.norm == "L1" else 2
        for n in range(x.shape[0]):
            for k in range(x.shape[1]):
                s = 1.0 if k == t[n] else -1.0
                loss[n, k] = max(0.0, 1.0 - s * x[n, k]) ** p
        if self.reduce == "mean":
            loss = numpy.asarray(loss.sum() / x.shape[0])
        return (loss.astype(self.dtype),)


def test_rejects_bad_inputs():
    x = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(type_check.InvalidType, match=r"Hinge[\s\S]*x.shape\[0\] == t.shape\[0\]"):
        F.hinge(x, numpy.zeros(3, numpy.int32))
    with pytest.raises(type_check.InvalidType, match=r"Hinge[\s\S]*t.dtype.kind == i"):
        F.hinge(x, numpy.zeros(2, numpy.float32))
    with pytest.raises(type_check.InvalidType, match=r"Hinge[\s\S]*x.ndim == 2"):
        F.hinge(numpy.zeros((2, 3, 1), numpy.float32), numpy.zeros(2, numpy.int32))
    with pytest.raises(ValueError, match=r"hinge: every label of t must be in \[0, 3\); found 3"):
        F.hinge(x, numpy.array([0, 3], numpy.int32))
    with pytest.raises(NotImplementedError, match=r"hinge: norm must be 'L1' or 'L2'"):
        F.hinge(x, numpy.zeros(2, numpy.int32), norm="L3")
    with pytest.raises(ValueError, match=r"hinge: only 'mean' and 'no' are valid for reduce"):
        F.hinge(x, numpy.zeros(2, numpy.int32), reduce="sum")
