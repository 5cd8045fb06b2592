import numpy
import pytest

import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
FORWARD_TOL = {
    numpy.float16: {"atol": 1e-3, "rtol": 5e-3},
    numpy.float32: {"atol": 1e-6, "rtol": 1e-5},
    numpy.float64: {"atol": 1e-13, "rtol": 1e-12},
}
# Numerical gradients are computed in float64; for float64 a smaller step keeps the
# truncation error of central differences below the tolerance.
BACKWARD_TOL = {
    numpy.float16: {"atol": 1e-2, "rtol": 1e-2},
    numpy.float32: {"atol": 1e-4, "rtol": 1e-3},
    numpy.float64: {"eps": 1e-4, "atol": 1e-6, "rtol": 1e-5},
}
DOUBLE_BACKWARD_TOL = {
    numpy.float16: {"atol": 5e-2, "rtol": 5e-2},
    numpy.float32: {"atol": 1e-3, "rtol": 1e-2},
    numpy.float64: {"eps": 1e-4, "atol": 1e-6, "rtol": 1e-5},
}


# (shape of x, shape of y, axis)
CASES = [
    ((3, 2, 4), (2,), 1),
    ((3, 2, 4), (2, 4), 1),
    ((3, 2, 4), (3,), 0),
    ((3, 2, 4), (4,), 2),
    ((3, 2), (3, 2), 0),
    ((3, 2), (), 1),
]


@testing.fix_random()
@testing.parameterize(*testing.product({"case": CASES, "dtype": DTYPES}))
@testing.inject_backend_tests(None, BACKENDS)
class TestBias(testing.FunctionTestCase):
    def setUp(self):
        self.x_shape, self.y_shape, self.axis = self.case
        self.check_forward_options = FORWARD_TOL[self.dtype]
        self.check_backward_options = BACKWARD_TOL[self.dtype]
        self.check_double_backward_options = DOUBLE_BACKWARD_TOL[self.dtype]

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, self.x_shape).astype(self.dtype)
        y = numpy.asarray(numpy.random.uniform(-1, 1, self.y_shape), self.dtype)
        return x, y

    def forward(self, inputs, device):
        return (F.bias(*inputs, axis=self.axis),)

    def forward_expected(self, inputs):
        x, y = (a.astype(numpy.float64) for a in inputs)
        # Place y's axes at axis, axis + 1, ... of an array with x's number of axes.
        leading = (1,) * self.axis
        trailing = (1,) * (x.ndim - self.axis - y.ndim)
        return (numpy.asarray(x + y.reshape(leading + y.shape + trailing), self.dtype),)


def test_bias_per_channel():
    x = numpy.zeros((2, 3, 2, 2), numpy.float32) + 2
    y = numpy.array([1.0, 2.0, 3.0], numpy.float32)
    out = F.bias(x, y).array
    for c in range(3):
        assert (out[:, c] == 2 + y[c]).all()


def test_bias_default_axis_is_one():
    x = numpy.ones((2, 3), numpy.float32)
    y = numpy.array([1.0, 2.0, 3.0], numpy.float32)
    assert numpy.array_equal(F.bias(x, y).array, F.bias(x, y, axis=1).array)


def test_bias_rejects_a_y_that_does_not_match_the_axes_of_x():
    x = numpy.ones((3, 2, 4), numpy.float32)
    with pytest.raises(type_check.InvalidType, match=r"bias \(Forward\)[\s\S]*x.shape\[1:1 \+ y.ndim\] == y.shape"):
        F.bias(x, numpy.ones(4, numpy.float32))
    with pytest.raises(type_check.InvalidType, match=r"x.shape\[2:2 \+ y.ndim\] == y.shape"):
        F.bias(x, numpy.ones((4, 1), numpy.float32), axis=2)


def test_bias_rejects_mixed_dtypes():
    with pytest.raises(type_check.InvalidType, match=r"y.dtype == x.dtype"):
        F.bias(numpy.ones((2, 3), numpy.float32), numpy.ones(3, numpy.float64))


def test_bias_rejects_integer_inputs():
    with pytest.raises(type_check.InvalidType, match=r"x.dtype.kind == f"):
        F.bias(numpy.ones((2, 3), numpy.int32), numpy.ones(3, numpy.int32))


@pytest.mark.parametrize("axis", [-1, 1.0, True, None])
def test_bias_rejects_a_bad_axis(axis):
    error = ValueError if axis == -1 else TypeError
    with pytest.raises(error, match=r"chainer.functions.bias: axis must be"):
        F.bias(numpy.ones((2, 3), numpy.float32), numpy.ones(3, numpy.float32), axis=axis)
