import math

import _math_testlib as testlib
import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing

# name: (function, reference, (low, high) of the inputs)
UNARY = {
    "erf": (F.erf, testlib.scalar_reference(math.erf), (-2, 2)),
}


@testing.fix_random()
@testing.parameterize(*testing.product({"name": sorted(UNARY), "shape": [(), (3, 2)], "dtype": testlib.DTYPES}))
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestErf(testlib.UnaryTableMixin, testing.FunctionTestCase):
    table = UNARY


@pytest.mark.parametrize("name", sorted(UNARY))
def test_rejects_integer_input(name):
    testlib.assert_rejects_integer_inputs(UNARY[name][0], name, ["x"])


def test_erf_is_odd_and_tends_to_one():
    x = numpy.array([-numpy.inf, -6.0, 0.0, 6.0, numpy.inf])
    testing.assert_allclose(F.erf(x).array, numpy.array([-1.0, -1.0, 0.0, 1.0, 1.0]), atol=1e-15, rtol=0)


def test_erf_gradient_is_the_gaussian_density():
    x = chainer.Variable(numpy.array([-1.0, 0.0, 0.5]))
    (gx,) = chainer.grad([F.erf(x)], [x], grad_outputs=[numpy.ones(3)])
    testing.assert_allclose(gx.array, 2 / math.sqrt(math.pi) * numpy.exp(-(x.array**2)), atol=0, rtol=1e-14)
