import math

import _math_testlib as testlib
import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.functions.math import arctanh as arctanh_module
from chainer.utils import type_check


def _reference(x):
    """The inverse hyperbolic tangent from its logarithmic form, in float64."""
    return numpy.vectorize(lambda v: 0.5 * math.log((1 + v) / (1 - v)), otypes=[numpy.float64])(x.astype(numpy.float64))


@testing.fix_random()
@testing.parameterize(*testing.product({"shape": [(), (3, 2)], "dtype": testlib.DTYPES}))
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestArctanh(testlib.DtypeTolerancesMixin, testing.FunctionTestCase):
    def generate_inputs(self):
        return (numpy.random.uniform(-0.9, 0.9, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.arctanh(*inputs),)

    def forward_expected(self, inputs):
        return (_reference(inputs[0]).astype(self.dtype),)


def test_arctanh_lives_in_its_7_8_1_module():
    assert arctanh_module.arctanh is F.arctanh
    assert F.arctanh(chainer.Variable(numpy.zeros(1, "f"))).creator.__class__ is arctanh_module.Arctanh


def test_arctanh_is_infinite_at_one():
    with numpy.errstate(divide="ignore"):
        y = F.arctanh(numpy.array([-1.0, 1.0], numpy.float32))
    assert numpy.array_equal(y.array, numpy.array([-numpy.inf, numpy.inf], numpy.float32))


def test_arctanh_rejects_integer_input():
    with pytest.raises(type_check.InvalidType, match=r"arctanh \(Forward\)[\s\S]*x.dtype.kind == f"):
        F.arctanh(numpy.arange(3, dtype=numpy.int32))
