import _math_testlib as testlib
import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing

# name: (function, reference, (low, high) of the inputs)
UNARY = {
    "square": (F.square, testlib.scalar_reference(lambda v: v * v), (-2, 2)),
}


@testing.fix_random()
@testing.parameterize(*testing.product({"name": sorted(UNARY), "shape": [(), (3, 2)], "dtype": testlib.DTYPES}))
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestSquare(testlib.UnaryTableMixin, testing.FunctionTestCase):
    table = UNARY


@pytest.mark.parametrize("name", sorted(UNARY))
def test_rejects_integer_input(name):
    testlib.assert_rejects_integer_inputs(UNARY[name][0], name, ["x"])


def test_square_of_a_variable_matches_its_power():
    x = chainer.Variable(numpy.array([-1.5, 0.0, 3.0], numpy.float32))
    assert numpy.array_equal(F.square(x).array, numpy.array([2.25, 0.0, 9.0], numpy.float32))
