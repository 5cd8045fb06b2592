import math

import _math_testlib as testlib
import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing

# name: (function, reference, (low, high) of the inputs)
UNARY = {
    "log1p": (F.log1p, testlib.scalar_reference(math.log1p), (-0.5, 2)),
}


@testing.fix_random()
@testing.parameterize(*testing.product({"name": sorted(UNARY), "shape": [(), (3, 2)], "dtype": testlib.DTYPES}))
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestLog1p(testlib.UnaryTableMixin, testing.FunctionTestCase):
    table = UNARY


@pytest.mark.parametrize("name", sorted(UNARY))
def test_rejects_integer_input(name):
    testlib.assert_rejects_integer_inputs(UNARY[name][0], name, ["x"])


def test_log1p_is_accurate_near_zero():
    x = numpy.array([1e-10, -1e-12], numpy.float64)
    testing.assert_allclose(F.log1p(x).array, numpy.array([1e-10 - 5e-21, -1e-12 - 5e-25]), atol=0, rtol=1e-15)


def test_log1p_lives_in_its_7_8_1_module():
    from chainer.functions.math import logarithm_1p

    assert logarithm_1p.log1p is F.log1p
    assert F.log1p(chainer.Variable(numpy.zeros(1, "f"))).creator.__class__ is logarithm_1p.Log1p
