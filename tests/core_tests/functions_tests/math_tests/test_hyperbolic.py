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
    "sinh": (F.sinh, _scalar_reference(lambda v: (math.exp(v) - math.exp(-v)) / 2), (-3, 3)),
    "cosh": (F.cosh, _scalar_reference(lambda v: (math.exp(v) + math.exp(-v)) / 2), (-3, 3)),
}


@testing.fix_random()
@testing.parameterize(*testing.product({"name": sorted(UNARY), "shape": [(), (3, 2)], "dtype": testlib.DTYPES}))
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestHyperbolic(testlib.DtypeTolerancesMixin, testing.FunctionTestCase):
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


def test_sinh_and_cosh_satisfy_the_hyperbolic_identity():
    x = chainer.Variable(numpy.linspace(-2, 2, 9))
    identity = F.cosh(x) ** 2 - F.sinh(x) ** 2
    testing.assert_allclose(identity.array, numpy.ones(9), atol=1e-12, rtol=0)
