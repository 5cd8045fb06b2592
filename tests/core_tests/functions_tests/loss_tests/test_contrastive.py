import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(*testing.product({"margin": [0.5, 2.0], "reduce": ["mean", "no"], "dtype": DTYPES}))
@testing.inject_backend_tests(None, BACKENDS)
class TestContrastive(testing.FunctionTestCase):
    dodge_nondifferentiable = True

    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-2, "rtol": 1e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
        self.check_double_backward_options = self.check_backward_options
        self.y = numpy.array([1, 0, 0, 1, 0], numpy.int32)

    def generate_inputs(self):
        x0 = numpy.random.uniform(-1, 1, (5, 3)).astype(self.dtype)
        x1 = numpy.random.uniform(-1, 1, (5, 3)).astype(self.dtype)
        return x0, x1, self.y

    def forward(self, inputs, device):
        return (F.contrastive(*inputs, margin=self.margin, reduce=self.reduce),)

    def forward_expected(self, inputs):
        x0, x1, y = inputs
        loss = numpy.empty(len(y))
        for n in range(len(y)):
            d = numpy.linalg.norm(x0[n].astype(numpy.float64) - x1[n])
            loss[n] = 0.5 * (d**2 if y[n] == 1 else max(0.0, self.margin - d) ** 2)
        if self.reduce == "mean":
            loss = numpy.asarray(loss.mean())
        return (loss.astype(self.dtype),)


def test_identical_dissimilar_pair_has_finite_zero_gradient():
    x0 = chainer.Variable(numpy.ones((1, 2)))
    x1 = chainer.Variable(numpy.ones((1, 2)))
    loss = F.contrastive(x0, x1, numpy.array([0], numpy.int32), margin=1.0)
    loss.backward()
    assert float(loss.array) == 0.5
    numpy.testing.assert_array_equal(x0.grad, numpy.zeros((1, 2)))


def test_rejects_bad_inputs():
    x = numpy.zeros((2, 3), numpy.float32)
    y = numpy.zeros(2, numpy.int32)
    with pytest.raises(type_check.InvalidType, match=r"Contrastive[\s\S]*x0.shape == x1.shape"):
        F.contrastive(x, numpy.zeros((2, 4), numpy.float32), y)
    with pytest.raises(type_check.InvalidType, match=r"Contrastive[\s\S]*x0.shape\[0\] == y.shape\[0\]"):
        F.contrastive(x, x, numpy.zeros(3, numpy.int32))
    with pytest.raises(type_check.InvalidType, match=r"Contrastive[\s\S]*y.dtype.kind == i"):
        F.contrastive(x, x, numpy.zeros(2, numpy.float32))
    with pytest.raises(ValueError, match=r"contrastive: every label of y must be 0 or 1"):
        F.contrastive(x, x, numpy.array([0, 2], numpy.int32))
    with pytest.raises(ValueError, match=r"contrastive: margin must be a positive number"):
        F.contrastive(x, x, y, margin=0)
    with pytest.raises(ValueError, match=r"contrastive: only 'mean' and 'no' are valid for reduce"):
        F.contrastive(x, x, y, reduce="sum")
