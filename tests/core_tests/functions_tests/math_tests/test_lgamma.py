import math

import _math_testlib as testlib
import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing

# name: (function, reference, (low, high) of the inputs)
UNARY = {
    "lgamma": (F.lgamma, testlib.scalar_reference(math.lgamma), (0.5, 4)),
}


@testing.fix_random()
@testing.parameterize(*testing.product({"name": sorted(UNARY), "shape": [(), (3, 2)], "dtype": testlib.DTYPES}))
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestLGamma(testlib.UnaryTableMixin, testing.FunctionTestCase):
    table = UNARY


@pytest.mark.parametrize("name", sorted(UNARY))
def test_rejects_integer_input(name):
    testlib.assert_rejects_integer_inputs(UNARY[name][0], name, ["x"])


def test_lgamma_of_negative_non_integers_is_log_of_absolute_gamma():
    x = numpy.array([-0.5, -1.5, -2.5])
    expected = numpy.log(numpy.abs([math.gamma(v) for v in x]))
    testing.assert_allclose(F.lgamma(x).array, expected, atol=0, rtol=1e-13)


def test_lgamma_gradient_is_digamma():
    x = chainer.Variable(numpy.array([1.0, 2.0]))
    (gx,) = chainer.grad([F.lgamma(x)], [x], grad_outputs=[numpy.ones(2)])
    euler_gamma = 0.5772156649015329
    testing.assert_allclose(gx.array, numpy.array([-euler_gamma, 1 - euler_gamma]), atol=0, rtol=1e-13)
