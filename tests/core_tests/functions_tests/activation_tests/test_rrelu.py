import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]


@testing.parameterize(
    *testing.product(
        {"dtype": [numpy.float16, numpy.float32, numpy.float64], "shape": [(), (3, 4)], "train": [True, False]}
    )
)
@testing.inject_backend_tests(None, BACKENDS)
class TestRReLU(testing.FunctionTestCase):
    dodge_nondifferentiable = True
    lower, upper = 0.1, 0.3

    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_forward_options = {"atol": 1e-3, "rtol": 1e-3}
            self.check_backward_options = {"atol": 5e-3, "rtol": 5e-2}
        else:
            self.check_forward_options = {"atol": 1e-7, "rtol": 1e-6}
            self.check_backward_options = {"atol": 1e-4, "rtol": 1e-3}
        self.check_double_backward_options = self.check_backward_options
        # Fixed slopes so that every forward of a check sees the same function.
        self.r = numpy.random.uniform(self.lower, self.upper, self.shape).astype(self.dtype)

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        with chainer.using_config("train", self.train):
            r = device.send(self.r.astype(inputs[0].dtype))  # the numerical check runs in float64
            return (F.rrelu(inputs[0], self.lower, self.upper, r=r),)

    def forward_expected(self, inputs):
        x = inputs[0].astype(numpy.float64)
        slope = self.r.astype(numpy.float64) if self.train else (self.lower + self.upper) / 2
        return (numpy.asarray(numpy.where(x >= 0, x, slope * x), self.dtype),)


@testing.fix_random()
def test_rrelu_random_slopes_are_uniform_in_range():
    x = -numpy.ones((200, 100), numpy.float32)
    y, r = F.rrelu(x, l=0.2, u=0.4, return_r=True)
    assert r.shape == x.shape and r.dtype == numpy.float32
    assert r.min() >= 0.2 and r.max() < 0.4
    # Mean and variance of U(0.2, 0.4): 0.3 and 0.2**2 / 12.
    assert abs(r.mean() - 0.3) < 3e-3
    assert abs(r.var() - 0.04 / 12) < 2e-4
    numpy.testing.assert_array_equal(y.array, -r)
    # Each call draws new slopes.
    _, r2 = F.rrelu(x, l=0.2, u=0.4, return_r=True)
    assert not numpy.array_equal(r, r2)


def test_rrelu_test_mode_uses_mean_slope():
    x = numpy.array([-2.0, 3.0], numpy.float32)
    with chainer.using_config("train", False):
        y, r = F.rrelu(x, return_r=True)
    expected_slope = (1.0 / 8 + 1.0 / 3) / 2
    numpy.testing.assert_allclose(r, [expected_slope] * 2)
    numpy.testing.assert_allclose(y.array, [-2.0 * expected_slope, 3.0], rtol=1e-6)


def test_rrelu_returned_r_reproduces_output():
    x = numpy.random.uniform(-1, 1, (4, 3)).astype(numpy.float32)
    y, r = F.rrelu(x, return_r=True)
    y2 = F.rrelu(x, r=r)
    numpy.testing.assert_array_equal(y.array, y2.array)


def test_rrelu_gradient_uses_slopes():
    x = chainer.Variable(numpy.array([-1.0, 2.0, -3.0]))
    r = numpy.array([0.2, 0.25, 0.3])
    F.sum(F.rrelu(x, r=r)).backward()
    numpy.testing.assert_allclose(x.grad, [0.2, 1.0, 0.3])


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"l": -0.1}, ValueError, r"rrelu: l must be a real number in \[0, 1\), got -0.1"),
        ({"u": 1.0}, ValueError, r"rrelu: u must be a real number in \[0, 1\), got 1.0"),
        ({"l": 0.3, "u": 0.2}, ValueError, r"rrelu: l must be less than u"),
        ({"train": True}, ValueError, r"train argument is not supported anymore"),
        ({"seed": 1}, TypeError, r"unexpected keyword argument\(s\) 'seed'"),
    ],
)
def test_rrelu_invalid_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        F.rrelu(numpy.zeros(3, numpy.float32), **kwargs)


def test_rrelu_invalid_types():
    with pytest.raises(type_check.InvalidType, match=r"RReLU \(Forward\)[\s\S]*x.dtype.kind == f"):
        F.rrelu(numpy.arange(3))
    with pytest.raises(type_check.InvalidType, match=r"x.shape == r.shape"):
        F.rrelu(numpy.zeros(3, numpy.float32), r=numpy.zeros(4, numpy.float32))
    with pytest.raises(type_check.InvalidType, match=r"x.dtype == r.dtype"):
        F.rrelu(numpy.zeros(3, numpy.float32), r=numpy.zeros(3, numpy.float64))
