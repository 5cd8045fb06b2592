import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@testing.parameterize(
    *testing.product(
        {
            "shape_reduce": [((4, 3), "sum_along_second_axis"), ((2, 3, 2), "sum_along_second_axis"), ((5,), "no")],
            "delta": [0.5, 1.5],
            "dtype": DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestHuberLoss(testing.FunctionTestCase):
    dodge_nondifferentiable = True

    def setUp(self):
        self.shape, self.reduce = self.shape_reduce
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        return tuple(numpy.random.uniform(-2, 2, self.shape).astype(self.dtype) for _ in range(2))

    def forward(self, inputs, device):
        return (F.huber_loss(*inputs, delta=self.delta, reduce=self.reduce),)

    def forward_expected(self, inputs):
        x, t = (a.astype(numpy.float64) for a in inputs)
        loss = numpy.empty(x.shape)
        for index in numpy.ndindex(*x.shape):
            d = x[index] - t[index]
            loss[index] = 0.5 * d * d if abs(d) <= self.delta else self.delta * (abs(d) - 0.5 * self.delta)
        if self.reduce == "sum_along_second_axis":
            loss = loss.sum(axis=1)
        return (loss.astype(self.dtype),)


def test_gradient_is_clipped_difference():
    x = chainer.Variable(numpy.array([[0.3, 4.0, -5.0]]))
    t = chainer.Variable(numpy.zeros((1, 3)))
    # (summed to a 0-dimensional loss: backward from a (1,)-shaped one is deprecated)
    F.sum(F.huber_loss(x, t, delta=1.0)).backward()
    numpy.testing.assert_allclose(x.grad, [[0.3, 1.0, -1.0]])
    numpy.testing.assert_allclose(t.grad, [[-0.3, -1.0, 1.0]])


def test_rejects_bad_inputs():
    x = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(type_check.InvalidType, match=r"HuberLoss[\s\S]*x.shape == t.shape"):
        F.huber_loss(x, numpy.zeros((3, 2), numpy.float32), 1.0)
    with pytest.raises(type_check.InvalidType, match=r"HuberLoss[\s\S]*x.dtype == t.dtype"):
        F.huber_loss(x, numpy.zeros((2, 3), numpy.float64), 1.0)
    with pytest.raises(type_check.InvalidType, match=r"HuberLoss[\s\S]*x.ndim >= 2"):
        F.huber_loss(numpy.zeros(3, numpy.float32), numpy.zeros(3, numpy.float32), 1.0)
    with pytest.raises(ValueError, match=r"huber_loss: only 'sum_along_second_axis' and 'no' are valid for reduce"):
        F.huber_loss(x, x, 1.0, reduce="mean")
    with pytest.raises(ValueError, match=r"huber_loss: delta must be a positive number"):
        F.huber_loss(x, x, 0.0)
