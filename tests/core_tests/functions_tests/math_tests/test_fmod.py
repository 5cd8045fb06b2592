import numpy
import pytest

import chainer
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


@testing.fix_random()
@testing.parameterize(
    *testing.product({"shapes": [((), ()), ((3, 2), (3, 2)), ((3, 2), (2,)), ((2,), (3, 1))], "dtype": DTYPES})
)
@testing.inject_backend_tests(None, BACKENDS)
class TestFmod(testing.FunctionTestCase):
    dodge_nondifferentiable = True

    def setUp(self):
        self.check_forward_options = FORWARD_TOL[self.dtype]
        self.check_backward_options = BACKWARD_TOL[self.dtype]
        self.check_double_backward_options = DOUBLE_BACKWARD_TOL[self.dtype]

    def generate_inputs(self):
        x_shape, d_shape = self.shapes
        out_shape = numpy.broadcast_shapes(x_shape, d_shape)
        divisor = numpy.random.choice([-1.0, 1.0], d_shape) * numpy.random.uniform(0.5, 2, d_shape)
        # Quotients well inside (k, k + 1), away from the jumps of fmod, even in float16.
        quotient = numpy.random.randint(-3, 3, out_shape) + numpy.random.uniform(0.2, 0.8, out_shape)
        x = quotient * divisor
        if x.shape != x_shape:
            x = x[(0,) * (x.ndim - len(x_shape))]
        return numpy.asarray(x, self.dtype), numpy.asarray(divisor, self.dtype)

    def forward(self, inputs, device):
        return (F.fmod(*inputs),)

    def forward_expected(self, inputs):
        x, divisor = (a.astype(numpy.float64) for a in inputs)
        # C's fmod: x - d * trunc(x / d), the sign of x.
        return (numpy.asarray(x - divisor * numpy.trunc(x / divisor), self.dtype),)


def test_fmod_takes_the_sign_of_the_dividend():
    x = numpy.array([5.5, -5.5, 5.5, -5.5], numpy.float32)
    d = numpy.array([2.0, 2.0, -2.0, -2.0], numpy.float32)
    assert numpy.array_equal(F.fmod(x, d).array, numpy.array([1.5, -1.5, 1.5, -1.5], numpy.float32))


def test_fmod_gradients():
    x = chainer.Variable(numpy.array([7.0, -7.0]))
    d = chainer.Variable(numpy.array([2.0, 2.0]))
    gx, gd = chainer.grad([F.fmod(x, d)], [x, d], grad_outputs=[numpy.ones(2)])
    assert numpy.array_equal(gx.array, [1.0, 1.0])
    assert numpy.array_equal(gd.array, [-3.0, 3.0])


def test_fmod_rejects_mixed_dtypes():
    with pytest.raises(type_check.InvalidType, match=r"fmod \(Forward\)[\s\S]*divisor.dtype == x.dtype"):
        F.fmod(numpy.ones(3, numpy.float32), numpy.ones(3, numpy.float64))


def test_fmod_rejects_integer_inputs():
    with pytest.raises(type_check.InvalidType, match=r"fmod \(Forward\)[\s\S]*x.dtype.kind == f"):
        F.fmod(numpy.ones(3, numpy.int32), numpy.ones(3, numpy.int32))


def test_fmod_rejects_shapes_that_do_not_broadcast():
    with pytest.raises(type_check.InvalidType, match=r"x.shape and divisor.shape can be broadcast together"):
        F.fmod(numpy.ones((2, 3), numpy.float32), numpy.ones(2, numpy.float32))
