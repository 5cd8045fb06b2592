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
class TestCeil(testing.FunctionTestCase):
    # Piecewise constant: the backward check confirms a zero gradient away from the
    # jumps; there is no gradient to differentiate a second time (as in Chainer).
    dodge_nondifferentiable = True
    skip_double_backward_test = True

    def setUp(self):
        self.check_forward_options = {"atol": 0, "rtol": 0}

    def generate_inputs(self):
        return (numpy.random.uniform(-4, 4, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        return (F.ceil(*inputs),)

    def forward_expected(self, inputs):
        (x,) = inputs
        reference = numpy.vectorize(lambda v: float(math.ceil(v)), otypes=[numpy.float64])
        return (reference(x.astype(numpy.float64)).astype(self.dtype),)


def test_ceil_of_halves_and_integers():
    x = numpy.array([-1.5, -0.5, 1.0, 2.5], numpy.float32)
    assert numpy.array_equal(F.ceil(x).array, numpy.array([-1.0, -0.0, 1.0, 3.0], numpy.float32))


def test_ceil_has_no_gradient():
    x = chainer.Variable(numpy.array([-1.5, -0.5, 1.0, 2.5], numpy.float32))
    y = F.ceil(x)
    assert y.dtype == numpy.float32
    assert chainer.grad([y], [x], grad_outputs=[numpy.ones(4, numpy.float32)]) == [None]


def test_ceil_rejects_integer_input():
    with pytest.raises(type_check.InvalidType, match=r"ceil \(Forward\)[\s\S]*x.dtype.kind == f"):
        F.ceil(numpy.arange(3))
