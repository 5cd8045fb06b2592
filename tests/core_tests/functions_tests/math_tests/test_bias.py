import _math_testlib as testlib
import numpy
import pytest

import chainer.functions as F
from chainer import testing


@testing.fix_random()
@testing.parameterize(*testing.product({"case": testlib.AXIS_CASES, "dtype": testlib.DTYPES}))
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestBias(testlib.AxisOperandMixin, testing.FunctionTestCase):
    def forward(self, inputs, device):
        return (F.bias(*inputs, axis=self.axis),)

    def forward_expected(self, inputs):
        x, y = (a.astype(numpy.float64) for a in inputs)
        return (numpy.asarray(x + testlib.along_axis(y, x.ndim, self.axis), self.dtype),)


def test_bias_per_channel():
    x = numpy.zeros((2, 3, 2, 2), numpy.float32) + 2
    y = numpy.array([1.0, 2.0, 3.0], numpy.float32)
    out = F.bias(x, y).array
    for c in range(3):
        assert (out[:, c] == 2 + y[c]).all()


def test_bias_default_axis_is_one():
    testlib.assert_default_axis_is_one(F.bias)


def test_bias_rejects_a_y_that_does_not_match_the_axes_of_x():
    testlib.assert_rejects_a_y_off_the_axes_of_x(F.bias, "bias")


def test_bias_rejects_mixed_dtypes():
    testlib.assert_rejects_mixed_dtypes(F.bias, "bias", ("x", "y"))


def test_bias_rejects_integer_inputs():
    testlib.assert_rejects_integer_inputs(F.bias, "bias", ("x", "y"))


@pytest.mark.parametrize("axis", [-1, 1.0, True, None])
def test_bias_rejects_a_bad_axis(axis):
    testlib.assert_rejects_a_bad_axis(F.bias, "bias", axis)
