import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(*testing.product({"margin": [0.1, 1.0], "reduce": ["mean", "no"], "dtype": DTYPES}))
@testing.inject_backend_tests(None, BACKENDS)
class TestTriplet(testing.FunctionTestCase):
    dodge_nondifferentiable = True

    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        return tuple(numpy.random.uniform(-1, 1, (5, 3)).astype(self.dtype) for _ in range(3))

    def forward(self, inputs, device):
        return (F.triplet(*inputs, margin=self.margin, reduce=self.reduce),)

    def forward_expected(self, inputs):
        a, p, n = (x.astype(numpy.float64) for x in inputs)
        loss = numpy.array(
            [max(0.0, ((a[i] - p[i]) ** 2).sum() - ((a[i] - n[i]) ** 2).sum() + self.margin) for i in range(len(a))]
        )
        if self.reduce == "mean":
            loss = numpy.asarray(loss.mean())
        return (loss.astype(self.dtype),)


def test_rejects_bad_inputs():
    x = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(type_check.InvalidType, match=r"Triplet[\s\S]*anchor.shape == negative.shape"):
        F.triplet(x, x, numpy.zeros((3, 3), numpy.float32))
    with pytest.raises(type_check.InvalidType, match=r"Triplet[\s\S]*anchor.dtype == positive.dtype"):
        F.triplet(x, numpy.zeros((2, 3), numpy.float64), x)
    with pytest.raises(type_check.InvalidType, match=r"Triplet[\s\S]*anchor.ndim == 2"):
        F.triplet(*(numpy.zeros(3, numpy.float32),) * 3)
    with pytest.raises(ValueError, match=r"triplet: margin must be a positive number"):
        F.triplet(x, x, x, margin=-1.0)
    with pytest.raises(ValueError, match=r"triplet: only 'mean' and 'no' are valid for reduce"):
        F.triplet(x, x, x, reduce="sum")
