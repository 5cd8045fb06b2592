import math

import _math_testlib as testlib
import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing


def _digamma(v):
    """The recurrence psi(x) = psi(x + 1) - 1/x up to x >= 10, then the asymptotic series."""
    result = 0.0
    while v < 10:
        result -= 1 / v
        v += 1
    inv2 = 1 / (v * v)
    series = inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 * (1 / 240 - inv2 / 132))))
    return result + math.log(v) - 0.5 / v - series


# name: (function, reference, (low, high) of the inputs)
UNARY = {
    "digamma": (F.digamma, testlib.scalar_reference(_digamma), (0.5, 4)),
}


@testing.fix_random()
@testing.parameterize(*testing.product({"name": sorted(UNARY), "shape": [(), (3, 2)], "dtype": testlib.DTYPES}))
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestDiGamma(testlib.UnaryTableMixin, testing.FunctionTestCase):
    table = UNARY


@pytest.mark.parametrize("name", sorted(UNARY))
def test_rejects_integer_input(name):
    testlib.assert_rejects_integer_inputs(UNARY[name][0], name, ["x"])


def test_digamma_known_values():
    euler_gamma = 0.5772156649015329
    x = numpy.array([0.5, 1.0, 2.0])
    expected = numpy.array([-euler_gamma - 2 * math.log(2), -euler_gamma, 1 - euler_gamma])
    testing.assert_allclose(F.digamma(x).array, expected, atol=0, rtol=1e-13)


def test_digamma_gradient_is_trigamma():
    x = chainer.Variable(numpy.array([1.0]))
    (gx,) = chainer.grad([F.digamma(x)], [x], grad_outputs=[numpy.ones(1)])
    testing.assert_allclose(gx.array, numpy.array([math.pi**2 / 6]), atol=0, rtol=1e-13)
