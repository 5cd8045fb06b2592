import _math_testlib as testlib
import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check


@testing.fix_random()
@testing.parameterize(*testing.product({"shape": [(), (3, 2)], "dtype": testlib.DTYPES}))
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestSign(testing.FunctionTestCase):
    # Piecewise constant: the backward check confirms a zero gradient away from zero;
    # there is nothing to differentiate a second time.
    dodge_nondifferentiable = True
    skip_double_backward_test = True

    def setUp(self):
        self.check_forward_options = {"atol": 0, "rtol": 0}

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.sign(*inputs),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (numpy.asarray(numpy.where(x > 0, 1, numpy.where(x < 0, -1, 0)), self.dtype),)


def test_sign_of_zero_infinities_and_nan():
    y = F.sign(numpy.array([-numpy.inf, -2.0, -0.0, 0.0, 3.0, numpy.inf, numpy.nan], numpy.float32)).array
    assert numpy.array_equal(y[:6], [-1, -1, 0, 0, 1, 1])
    assert numpy.isnan(y[6])


def test_sign_has_no_gradient():
    x = chainer.Variable(numpy.array([-1.0, 2.0], numpy.float32))
    assert chainer.grad([F.sign(x)], [x], grad_outputs=[numpy.ones(2, numpy.float32)]) == [None]


def test_sign_rejects_integer_input():
    with pytest.raises(type_check.InvalidType, match=r"Sign \(Forward\)[\s\S]*x.dtype.kind == f"):
        F.sign(numpy.arange(3))
