import math

import _math_testlib as testlib
import numpy
import pytest

import chainer.functions as F
from chainer import testing

# name: (function, reference, (low, high) of the inputs)
UNARY = {
    "erfc": (F.erfc, testlib.scalar_reference(math.erfc), (-2, 2)),
}


@testing.fix_random()
@testing.parameterize(*testing.product({"name": sorted(UNARY), "shape": [(), (3, 2)], "dtype": testlib.DTYPES}))
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestErfc(testlib.UnaryTableMixin, testing.FunctionTestCase):
    table = UNARY


@pytest.mark.parametrize("name", sorted(UNARY))
def test_rejects_integer_input(name):
    testlib.assert_rejects_integer_inputs(UNARY[name][0], name, ["x"])


def test_erfc_is_accurate_where_erf_rounds_to_one():
    # 1 - erf(x) would be 0 here; erfc keeps full relative precision.
    x = numpy.array([6.0, 10.0, 20.0])
    expected = numpy.array([math.erfc(6.0), math.erfc(10.0), math.erfc(20.0)])
    testing.assert_allclose(F.erfc(x).array, expected, atol=0, rtol=1e-13)
    assert (F.erfc(x).array > 0).all()
