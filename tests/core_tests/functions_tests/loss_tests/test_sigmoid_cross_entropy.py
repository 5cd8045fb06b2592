import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _reference(x, t, normalize, reduce):
    x = x.astype(numpy.float64)
    p = 1 / (1 + numpy.exp(-x))
    loss = numpy.where(t == -1, 0.0, -(t * numpy.log(p) + (1 - t) * numpy.log(1 - p)))
    if reduce == "no":
        return loss
    count = (t != -1).sum() if normalize else x.shape[0]
    return numpy.asarray(loss.sum() / max(count, 1))


@testing.parameterize(
    *testing.product_dict(
        [
            {"shape": (4, 3), "reduce": "mean", "normalize": True},
            {"shape": (4, 3), "reduce": "mean", "normalize": False},
            {"shape": (2, 3, 2), "reduce": "no", "normalize": True},
            {"shape": (5,), "reduce": "mean", "normalize": True},
        ],
        [{"dtype": d} for d in DTYPES],
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestSigmoidCrossEntropy(testing.FunctionTestCase):
    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_backward_options = {"atol": 5e-2, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
            self.check_backward_options = {"atol": 1e-3, "rtol": 1e-3}
        self.check_double_backward_options = self.check_backward_options
        t = numpy.random.randint(-1, 2, self.shape)
        t.reshape(-1)[:3] = [-1, 0, 1]
        self.t = t.astype(numpy.int32)

    def generate_inputs(self):
        return numpy.random.uniform(-3, 3, self.shape).astype(self.dtype), self.t

    def forward(self, inputs, device):
        return (F.sigmoid_cross_entropy(*inputs, normalize=self.normalize, reduce=self.reduce),)

    def forward_expected(self, inputs):
        return (_reference(*inputs, self.normalize, self.reduce).astype(self.dtype),)


@pytest.mark.parametrize("dtype", DTYPES)
def test_large_activations_do_not_overflow(dtype):
    big = 30000 if dtype == numpy.float16 else 1e30
    x = chainer.Variable(numpy.array([big, -big, big, -big], dtype))
    t = numpy.array([1, 0, 0, 1], numpy.int32)
    loss = F.sigmoid_cross_entropy(x, t, reduce="no")
    loss.grad = numpy.ones(4, dtype)
    loss.backward()
    numpy.testing.assert_allclose(loss.array.astype(numpy.float64), [0, 0, big, big], rtol=1e-3)
    numpy.testing.assert_allclose(x.grad.astype(numpy.float64), [0, 0, 1, -1])


def test_ignored_elements_get_zero_gradient():
    x = chainer.Variable(numpy.array([0.3, -0.2, 0.7]))
    F.sigmoid_cross_entropy(x, numpy.array([1, -1, 0], numpy.int32)).backward()
    p = 1 / (1 + numpy.exp(-x.array))
    numpy.testing.assert_allclose(x.grad, [(p[0] - 1) / 2, 0.0, p[2] / 2])


def test_all_ignored_gives_zero():
    loss = F.sigmoid_cross_entropy(numpy.ones(3, numpy.float32), numpy.full(3, -1, numpy.int32))
    assert float(loss.array) == 0.0


def test_rejects_bad_inputs():
    x = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(type_check.InvalidType, match=r"SigmoidCrossEntropy[\s\S]*x.shape == t.shape"):
        F.sigmoid_cross_entropy(x, numpy.zeros(2, numpy.int32))
    with pytest.raises(type_check.InvalidType, match=r"SigmoidCrossEntropy[\s\S]*t.dtype.kind == i"):
        F.sigmoid_cross_entropy(x, numpy.zeros((2, 3), numpy.float32))
    with pytest.raises(ValueError, match=r"sigmoid_cross_entropy: every label of t must be 0, 1 or -1.*found 2"):
        F.sigmoid_cross_entropy(x, numpy.full((2, 3), 2, numpy.int32))
    with pytest.raises(ValueError, match=r"sigmoid_cross_entropy: every label of t must be 0, 1 or -1.*found -3"):
        F.sigmoid_cross_entropy(x, numpy.full((2, 3), -3, numpy.int32))
    with pytest.raises(ValueError, match=r"sigmoid_cross_entropy: only 'mean' and 'no' are valid for reduce"):
        F.sigmoid_cross_entropy(x, numpy.zeros((2, 3), numpy.int32), reduce="sum")
