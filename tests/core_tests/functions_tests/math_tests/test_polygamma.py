import math

import _math_testlib as testlib
import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

# Bernoulli numbers B_2, B_4, ..., B_12 for the Euler-Maclaurin tail.
_BERNOULLI = [1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730]


def _hurwitz_zeta(s, q, terms=20):
    """zeta(s, q) = sum_k (q + k)^-s by Euler-Maclaurin summation, in float64."""
    total = sum((q + k) ** -s for k in range(terms))
    a = q + terms
    total += a ** (1 - s) / (s - 1) + a**-s / 2
    rising = s  # s (s + 1) ... (s + 2j - 2)
    factorial = 2.0  # (2j)!
    for j, b in enumerate(_BERNOULLI, start=1):
        total += b / factorial * rising * a ** (-s - 2 * j + 1)
        rising *= (s + 2 * j - 1) * (s + 2 * j)
        factorial *= (2 * j + 1) * (2 * j + 2)
    return total


def _digamma(v):
    result = 0.0
    while v < 10:
        result -= 1 / v
        v += 1
    inv2 = 1 / (v * v)
    series = inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (1 / 240 - inv2 / 132))))
    return result + math.log(v) - 0.5 / v - series


def _polygamma(n, v):
    if n == 0:
        return _digamma(v)
    return (-1) ** (n + 1) * math.factorial(n) * _hurwitz_zeta(n + 1, v)


@testing.fix_random()
@testing.parameterize(
    *testing.product({"shapes": [((), ()), ((3, 2), (3, 2)), ((4, 1), (2,)), ((), (3,))], "dtype": testlib.DTYPES})
)
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestPolyGamma(testlib.DtypeTolerancesMixin, testing.FunctionTestCase):
    def generate_inputs(self):
        n_shape, x_shape = self.shapes
        n = numpy.asarray(numpy.random.randint(0, 4, n_shape), numpy.int32)
        x = numpy.random.uniform(1, 3, x_shape).astype(self.dtype)
        return n, x

    def forward(self, inputs, device):
        return (F.polygamma(*inputs),)

    def forward_expected(self, inputs):
        n, x = numpy.broadcast_arrays(*inputs)
        y = numpy.vectorize(_polygamma, otypes=[numpy.float64])(n, x.astype(numpy.float64))
        return (numpy.asarray(y, self.dtype),)


def test_polygamma_known_values():
    # psi(1) = -gamma, psi'(1) = pi^2 / 6, psi''(1) = -2 zeta(3), psi'''(1) = pi^4 / 15
    n = numpy.array([0, 1, 2, 3])
    y = F.polygamma(n, numpy.ones(4))
    expected = [-0.5772156649015329, math.pi**2 / 6, -2 * 1.2020569031595942, math.pi**4 / 15]
    testing.assert_allclose(y.array, numpy.array(expected), atol=0, rtol=1e-13)


def test_polygamma_accepts_a_python_int_order():
    x = numpy.array([1.0, 2.0], numpy.float32)
    testing.assert_allclose(F.polygamma(1, x).array, F.polygamma(numpy.array([1, 1]), x).array, atol=0, rtol=0)


def test_polygamma_gives_no_gradient_to_the_order():
    n = chainer.Variable(numpy.array([1, 2]))
    x = chainer.Variable(numpy.array([1.5, 2.5]))
    (gx,) = chainer.grad([F.polygamma(n, x)], [x], grad_outputs=[numpy.ones(2)])
    testing.assert_allclose(gx.array, numpy.array([_polygamma(2, 1.5), _polygamma(3, 2.5)]), atol=0, rtol=1e-12)


def test_polygamma_rejects_a_float_order():
    with pytest.raises(type_check.InvalidType, match=r"polygamma \(Forward\)[\s\S]*n.dtype.kind == i"):
        F.polygamma(numpy.ones(2, numpy.float32), numpy.ones(2, numpy.float32))


def test_polygamma_rejects_integer_x():
    with pytest.raises(type_check.InvalidType, match=r"x.dtype.kind == f"):
        F.polygamma(numpy.ones(2, numpy.int32), numpy.ones(2, numpy.int32))


def test_polygamma_rejects_shapes_that_do_not_broadcast():
    with pytest.raises(type_check.InvalidType, match=r"n.shape and x.shape can be broadcast together"):
        F.polygamma(numpy.ones(3, numpy.int32), numpy.ones(2, numpy.float32))
