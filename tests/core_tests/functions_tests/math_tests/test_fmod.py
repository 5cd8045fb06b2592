import _math_testlib as testlib
import numpy

import chainer
import chainer.functions as F
from chainer import testing


@testing.fix_random()
@testing.parameterize(
    *testing.product({"shapes": [((), ()), ((3, 2), (3, 2)), ((3, 2), (2,)), ((2,), (3, 1))], "dtype": testlib.DTYPES})
)
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestFmod(testlib.DtypeTolerancesMixin, testing.FunctionTestCase):
    dodge_nondifferentiable = True

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
    testlib.assert_rejects_mixed_dtypes(F.fmod, "fmod", ("x", "divisor"))


def test_fmod_rejects_integer_inputs():
    testlib.assert_rejects_integer_inputs(F.fmod, "fmod", ("x", "divisor"))


def test_fmod_rejects_shapes_that_do_not_broadcast():
    testlib.assert_rejects_shapes_that_do_not_broadcast(F.fmod, "fmod", ("x", "divisor"))
