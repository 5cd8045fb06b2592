import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing

BACKENDS = [{}, {"use_cuda": True}]
SEED = 12345


def _softmax(v, axis):
    e = numpy.exp(v - v.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@testing.parameterize(
    *testing.product(
        {
            "dtype": [numpy.float16, numpy.float32, numpy.float64],
            "shape_axis": [((3, 4), 1), ((2, 3, 2), 0), ((2, 3, 2), -1)],
            "tau": [0.5, 2.0],
        }
    )
)
@testing.inject_backend_tests(None, BACKENDS[:1])  # reseeds NumPy's generator: CPU only
class TestGumbelSoftmax(testing.FunctionTestCase):
    # The noise comes from NumPy's global generator; reseeding it before every call makes the
    # function deterministic, so the reference can draw the same noise.

    def setUp(self):
        self.shape, self.axis = self.shape_axis
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 5e-3, "rtol": 5e-2}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-6, "rtol": 1e-5}
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        self.check_double_backward_options = self.check_backward_options

    def generate_inputs(self):
        p = numpy.random.uniform(0.1, 1, self.shape)
        return (numpy.log(p).astype(self.dtype),)

    def forward(self, inputs, device):
        numpy.random.seed(SEED)
        return (F.gumbel_softmax(inputs[0], tau=self.tau, axis=self.axis),)

    def forward_expected(self, inputs):
        numpy.random.seed(SEED)
        g = numpy.random.gumbel(size=self.shape).astype(self.dtype)
        v = (inputs[0] + g).astype(numpy.float64) / self.tau
        return (_softmax(v, self.axis).astype(self.dtype),)


@testing.fix_random()
def test_gumbel_softmax_samples_follow_pi():
    pi = numpy.array([0.1, 0.3, 0.6])
    n = 20000
    log_pi = numpy.broadcast_to(numpy.log(pi), (n, 3)).astype(numpy.float32)
    y = F.gumbel_softmax(log_pi, tau=0.01).array
    numpy.testing.assert_allclose(y.sum(axis=1), numpy.ones(n), rtol=1e-5)
    # At a low temperature the samples are nearly one-hot, with argmax distributed as pi.
    assert (y.max(axis=1) > 0.99).mean() > 0.95
    frequencies = numpy.bincount(y.argmax(axis=1), minlength=3) / n
    numpy.testing.assert_allclose(frequencies, pi, atol=0.02)


def test_gumbel_softmax_scalar_input():
    y = F.gumbel_softmax(numpy.array(0.3, numpy.float32))
    assert y.shape == () and y.dtype == numpy.float32 and float(y.array) == 1.0


def test_gumbel_softmax_default_axis_and_gradient_flow():
    log_pi = chainer.Variable(numpy.log(numpy.full((2, 3, 4), 0.25)))
    y = F.gumbel_softmax(log_pi)
    numpy.testing.assert_allclose(y.array.sum(axis=1), numpy.ones((2, 4)))
    F.sum(y * y).backward()
    assert log_pi.grad.shape == (2, 3, 4)


def test_gumbel_softmax_invalid_axis():
    with pytest.raises(chainer.utils.type_check.InvalidType, match=r"Softmax \(Forward\)[\s\S]*x.ndim > 2"):
        F.gumbel_softmax(numpy.zeros((2, 3), numpy.float32), axis=2)
