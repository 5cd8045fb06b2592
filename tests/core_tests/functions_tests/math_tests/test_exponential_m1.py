import math

import _math_testlib as testlib
import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing

# name: (function, reference, (low, high) of the inputs)
UNARY = {
    "expm1": (F.expm1, testlib.scalar_reference(math.expm1), (-2, 2)),
}


@testing.fix_random()
@testing.parameterize(*testing.product({"name": sorted(UNARY), "shape": [(), (3, 2)], "dtype": testlib.DTYPES}))
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestExpm1(testlib.UnaryTableMixin, testing.FunctionTestCase):
    table = UNARY


@pytest.mark.parametrize("name", sorted(UNARY))
def test_rejects_integer_input(name):
    testlib.assert_rejects_integer_inputs(UNARY[name][0], name, ["x"])


def test_expm1_is_accurate_near_zero():
    x = numpy.array([1e-10, -1e-12], numpy.float64)
    testing.assert_allclose(F.expm1(x).array, numpy.array([1e-10 + 5e-21, -1e-12 + 5e-25]), atol=0, rtol=1e-15)


def test_expm1_keeps_only_its_output_for_backward():
    x = chainer.Variable(numpy.zeros(3, numpy.float32))
    y = F.expm1(x)
    assert y.creator.inputs[0].data is None
    assert y.node.data is not None


def test_expm1_lives_in_its_7_8_1_module():
    from chainer.functions.math import exponential_m1

    assert exponential_m1.expm1 is F.expm1
    assert F.expm1(chainer.Variable(numpy.zeros(1, "f"))).creator.__class__ is exponential_m1.Expm1
