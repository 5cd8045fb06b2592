import math

import _math_testlib as testlib
import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing


def _log_ndtr(v):
    return math.log(0.5 * math.erfc(-v / math.sqrt(2.0)))


# name: (function, reference, (low, high) of the inputs)
UNARY = {
    "log_ndtr": (F.log_ndtr, testlib.scalar_reference(_log_ndtr), (-5, 3)),
}


@testing.fix_random()
@testing.parameterize(*testing.product({"name": sorted(UNARY), "shape": [(), (3, 2)], "dtype": testlib.DTYPES}))
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestLogNdtr(testlib.UnaryTableMixin, testing.FunctionTestCase):
    table = UNARY


@pytest.mark.parametrize("name", sorted(UNARY))
def test_rejects_integer_input(name):
    testlib.assert_rejects_integer_inputs(UNARY[name][0], name, ["x"])


def test_log_ndtr_far_in_the_lower_tail():
    # log Phi(x) ~ -x^2/2 - log(-x sqrt(2 pi)) + log(1 - 1/x^2 + 3/x^4) for x -> -inf,
    # where Phi itself underflows to zero.
    x = chainer.Variable(numpy.array([-40.0, -100.0]))
    y = F.log_ndtr(x)
    v = x.array
    expected = -(v**2) / 2 - numpy.log(-v * math.sqrt(2 * math.pi)) + numpy.log(1 - 1 / v**2 + 3 / v**4)
    testing.assert_allclose(y.array, expected, atol=0, rtol=1e-10)
    # The derivative phi / Phi ~ -x (1 + 1/x^2 - 2/x^4) stays finite there.
    (gx,) = chainer.grad([y], [x], grad_outputs=[numpy.ones(2)])
    testing.assert_allclose(gx.array, -v * (1 + 1 / v**2 - 2 / v**4), atol=0, rtol=1e-8)
