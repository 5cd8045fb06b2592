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


def _ndtr(v):
    return 0.5 * math.erfc(-v / math.sqrt(2.0))


# name: (function, reference, (low, high) of the inputs)
UNARY = {
    "ndtr": (F.ndtr, _scalar_reference(_ndtr), (-3, 3)),
}


@testing.fix_random()
@testing.parameterize(*testing.product({"name": sorted(UNARY), "shape": [(), (3, 2)], "dtype": testlib.DTYPES}))
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestNdtr(testlib.DtypeTolerancesMixin, testing.FunctionTestCase):
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


def test_ndtr_known_values():
    x = numpy.array([-1.959963984540054, 0.0, 1.0])
    testing.assert_allclose(F.ndtr(x).array, numpy.array([0.025, 0.5, 0.8413447460685429]), atol=0, rtol=1e-12)


def test_ndtr_gradient_is_the_normal_density():
    x = chainer.Variable(numpy.array([-1.0, 0.0, 2.0]))
    (gx,) = chainer.grad([F.ndtr(x)], [x], grad_outputs=[numpy.ones(3)])
    testing.assert_allclose(gx.array, numpy.exp(-(x.array**2) / 2) / math.sqrt(2 * math.pi), atol=0, rtol=1e-14)
