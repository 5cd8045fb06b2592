import math

import _math_testlib as testlib
import numpy

import chainer.functions as F
from chainer import testing


@testing.fix_random()
@testing.parameterize(*testing.product({"shape": [(), (3, 2)], "dtype": testlib.DTYPES}))
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestFix(testlib.RoundingMixin, testing.FunctionTestCase):
    def forward(self, inputs, device):
        return (F.fix(*inputs),)

    def forward_expected(self, inputs):
        return (testlib.per_element(math.trunc, inputs[0]).astype(self.dtype),)


def test_fix_of_halves_and_integers():
    x = numpy.array([-1.5, -0.5, 1.0, 2.5], numpy.float32)
    assert numpy.array_equal(F.fix(x).array, numpy.array([-1.0, -0.0, 1.0, 2.0], numpy.float32))


def test_fix_has_no_gradient():
    testlib.assert_no_gradient(F.fix)


def test_fix_rejects_integer_input():
    testlib.assert_rejects_integer_inputs(F.fix, "fix", ("x",))
