import math

import _math_testlib as testlib
import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check


def _scalar_reference(f):
    """An elementwise float64 reference from a function of Python floats."""
    vectorized = numpy.vectorize(f, otypes=[numpy.float64])
    return lambda *xs: vectorized(*[x.astype(numpy.float64) for x in xs])


# name: (function, reference, (low, high) of the inputs)
UNARY = {
    "lgamma": (F.lgamma, _scalar_reference(math.lgamma), (0.5, 4)),
}


@testing.fix_random()
@testing.parameterize(*testing.product({"name": sorted(UNARY), "shape": [(), (3, 2)], "dtype": testlib.DTYPES}))
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestLGamma(testlib.DtypeTolerancesMixin, testing.FunctionTestCase):
    def setUp(self):
        super().setUp()
        self.function, self.reference, self.domain = UNARY[self.name]

    def generate_inputs(self):
        return (numpy.random.uniform(*self.domain, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        return (self.function(*inputs),)

    def forward_expected(self, inputs):
        return (self.reference(*inputs).astype(self.dtype),)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_rejects_integer_input(name):
    function = UNARY[name][0]
    with pytest.raises(type_check.InvalidType, match=rf"{name} \(Forward\)[\s\S]*x.dtype.kind == f"):
        function(numpy.arange(3, dtype=numpy.int32))


def test_lgamma_of_negative_non_integers_is_log_of_absolute_gamma():
    x = numpy.array([-0.5, -1.5, -2.5])
    expected = numpy.log(numpy.abs([math.gamma(v) for v in x]))
    testing.assert_allclose(F.lgamma(x).array, expected, atol=0, rtol=1e-13)


def test_lgamma_gradient_is_digamma():
    x = chainer.Variable(numpy.array([1.0, 2.0]))
    (gx,) = chainer.grad([F.lgamma(x)], [x], grad_outputs=[numpy.ones(2)])
    euler_gamma = 0.5772156649015329
    testing.assert_allclose(gx.array, numpy.array([-euler_gamma, 1 - euler_gamma]), atol=0, rtol=1e-13)
