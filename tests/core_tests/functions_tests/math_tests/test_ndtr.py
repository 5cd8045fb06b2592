import math

import _math_testlib as testlib
import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing


def _ndtr(v):
    return 0.5 * math.erfc(-v / math.sqrt(2.0))


# name: (function, reference, (low, high) of the inputs)
UNARY = {
    "ndtr": (F.ndtr, testlib.scalar_reference(_ndtr), (-3, 3)),
}


@testing.fix_random()
@testing.parameterize(*testing.product({"name": sorted(UNARY), "shape": [(), (3, 2)], "dtype": testlib.DTYPES}))
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestNdtr(testlib.UnaryTableMixin, testing.FunctionTestCase):
    table = UNARY


@pytest.mark.parametrize("name", sorted(UNARY))
def test_rejects_integer_input(name):
    testlib.assert_rejects_integer_inputs(UNARY[name][0], name, ["x"])


def test_ndtr_known_values():
    x = numpy.array([-1.959963984540054, 0.0, 1.0])
    testing.assert_allclose(F.ndtr(x).array, numpy.array([0.025, 0.5, 0.8413447460685429]), atol=0, rtol=1e-12)


def test_ndtr_gradient_is_the_normal_density():
    x = chainer.Variable(numpy.array([-1.0, 0.0, 2.0]))
    (gx,) = chainer.grad([F.ndtr(x)], [x], grad_outputs=[numpy.ones(3)])
    testing.assert_allclose(gx.array, numpy.exp(-(x.array**2) / 2) / math.sqrt(2 * math.pi), atol=0, rtol=1e-14)
