import math

import _math_testlib as testlib
import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing

# name: (function, reference, (low, high) of the inputs)
UNARY = {
    "sinh": (F.sinh, testlib.scalar_reference(lambda v: (math.exp(v) - math.exp(-v)) / 2), (-3, 3)),
    "cosh": (F.cosh, testlib.scalar_reference(lambda v: (math.exp(v) + math.exp(-v)) / 2), (-3, 3)),
}


@testing.fix_random()
@testing.parameterize(*testing.product({"name": sorted(UNARY), "shape": [(), (3, 2)], "dtype": testlib.DTYPES}))
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestHyperbolic(testlib.UnaryTableMixin, testing.FunctionTestCase):
    table = UNARY


@pytest.mark.parametrize("name", sorted(UNARY))
def test_rejects_integer_input(name):
    testlib.assert_rejects_integer_inputs(UNARY[name][0], name, ["x"])


def test_sinh_and_cosh_satisfy_the_hyperbolic_identity():
    x = chainer.Variable(numpy.linspace(-2, 2, 9))
    identity = F.cosh(x) ** 2 - F.sinh(x) ** 2
    testing.assert_allclose(identity.array, numpy.ones(9), atol=1e-12, rtol=0)
