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


@testing.fix_random()
@testing.parameterize(
    *testing.product(
        {
            # (exponent x, shape of q): a scalar, an array of q's shape, one that broadcasts.
            "case": [
                (2.5, ()),
                (3.0, (3, 2)),
                (numpy.array([[1.5], [2.0], [4.0]]), (3, 2)),
                (numpy.array([2.0, 3.0]), (3, 1)),
            ],
            "dtype": testlib.DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestZeta(testlib.DtypeTolerancesMixin, testing.FunctionTestCase):
    def setUp(self):
        super().setUp()
        self.x, self.q_shape = self.case

    def generate_inputs(self):
        return (numpy.random.uniform(0.5, 3, self.q_shape).astype(self.dtype),)

    def forward(self, inputs, device):
        x = self.x if numpy.isscalar(self.x) else device.send(self.x)
        return (F.zeta(x, *inputs),)

    def forward_expected(self, inputs):
        x, q = numpy.broadcast_arrays(self.x, inputs[0].astype(numpy.float64))
        y = numpy.vectorize(_hurwitz_zeta, otypes=[numpy.float64])(x, q)
        return (numpy.asarray(y, self.dtype),)


def test_zeta_known_values():
    # zeta(2, 1) = pi^2 / 6 (Riemann), zeta(2, 1/2) = pi^2 / 2, zeta(4, 1) = pi^4 / 90
    y = F.zeta(numpy.array([2.0, 2.0, 4.0]), numpy.array([1.0, 0.5, 1.0]))
    testing.assert_allclose(y.array, numpy.array([math.pi**2 / 6, math.pi**2 / 2, math.pi**4 / 90]), atol=0, rtol=1e-13)


def test_zeta_gradient():
    q = chainer.Variable(numpy.array([1.0, 2.0]))
    (gq,) = chainer.grad([F.zeta(3.0, q)], [q], grad_outputs=[numpy.ones(2)])
    expected = numpy.array([-3 * _hurwitz_zeta(4, 1.0), -3 * _hurwitz_zeta(4, 2.0)])
    testing.assert_allclose(gq.array, expected, atol=0, rtol=1e-12)


def test_zeta_rejects_integer_q():
    with pytest.raises(type_check.InvalidType, match=r"zeta \(Forward\)[\s\S]*q.dtype.kind == f"):
        F.zeta(2.0, numpy.arange(1, 3))


def test_zeta_rejects_an_exponent_that_does_not_broadcast():
    with pytest.raises(type_check.InvalidType, match=r"x.shape and q.shape can be broadcast together"):
        F.zeta(numpy.ones(3) * 2, numpy.ones(2))


def test_zeta_rejects_a_variable_exponent():
    with pytest.raises(TypeError, match=r"chainer.functions.zeta: x must be an array or a real scalar, not a Variable"):
        F.zeta(chainer.Variable(numpy.array([2.0])), numpy.ones(1))


@pytest.mark.parametrize("x", ["2", [2.0], True, numpy.array([2j])])
def test_zeta_rejects_a_non_real_exponent(x):
    with pytest.raises(TypeError, match=r"chainer.functions.zeta: x must"):
        F.zeta(x, numpy.ones(1))
