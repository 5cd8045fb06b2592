import math

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


@testing.fix_random()
@testing.parameterize(*testing.product({"shape": [(), (3, 2)], "dtype": DTYPES}))
@testing.inject_backend_tests(None, BACKENDS)
class TestFix(testing.FunctionTestCase):
    # Piecewise constant: the backward check confirms a zero gradient away from the
    # jumps; there is no gradient to differentiate a second time (as in Chainer).
    dodge_nondifferentiable = True
    skip_double_backward_test = True

    def setUp(self):
        self.check_forward_options = {"atol": 0, "rtol": 0}

    def generate_inputs(self):
        return (numpy.random.uniform(-4, 4, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.fix(*inputs),)

    def forward_expected(self, inputs):
        (x,) = inputs
        reference = numpy.vectorize(lambda v: float(math.trunc(v)), otypes=[numpy.float64])
        return (reference(x.astype(numpy.float64)).astype(self.dtype),)


def test_fix_of_halves_and_integers():
    x = numpy.array([-1.5, -0.5, 1.0, 2.5], numpy.float32)
    assert numpy.array_equal(F.fix(x).array, numpy.array([-1.0, -0.0, 1.0, 2.0], numpy.float32))


def test_fix_has_no_gradient():
    x = chainer.Variable(numpy.array([-1.5, -0.5, 1.0, 2.5], numpy.float32))
    y = F.fix(x)
    assert y.dtype == numpy.float32
    assert chainer.grad([y], [x], grad_outputs=[numpy.ones(4, numpy.float32)]) == [None]


def test_fix_rejects_integer_input():
    with pytest.raises(type_check.InvalidType, match=r"fix \(Forward\)[\s\S]*x.dtype.kind == f"):
        F.fix(numpy.arange(3))
