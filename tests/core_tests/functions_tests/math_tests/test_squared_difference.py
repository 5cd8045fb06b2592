import _math_testlib as testlib
import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check


@testing.fix_random()
@testing.parameterize(
    *testing.product(
        {"shapes": [((), ()), ((3, 2), (3, 2)), ((3, 2), (2,)), ((3, 1), (1, 2))], "dtype": testlib.DTYPES}
    )
)
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestSquaredDifference(testlib.DtypeTolerancesMixin, testing.FunctionTestCase):
    def generate_inputs(self):
        shape1, shape2 = self.shapes
        x1 = numpy.random.uniform(-1, 1, shape1).astype(self.dtype)
        x2 = numpy.random.uniform(-1, 1, shape2).astype(self.dtype)
        return x1, x2

    def forward(self, inputs, device):
        return (F.squared_difference(*inputs),)

    def forward_expected(self, inputs):
        x1, x2 = (x.astype(numpy.float64) for x in inputs)
        d = x1 - x2
        return (numpy.asarray(d * d, self.dtype),)


def test_squared_difference_gradients_are_opposite():
    x1 = chainer.Variable(numpy.array([3.0, 0.0]))
    x2 = chainer.Variable(numpy.array([1.0, 2.0]))
    g1, g2 = chainer.grad([F.squared_difference(x1, x2)], [x1, x2], grad_outputs=[numpy.ones(2)])
    assert numpy.array_equal(g1.array, [4.0, -4.0])
    assert numpy.array_equal(g2.array, [-4.0, 4.0])


def test_squared_difference_rejects_mixed_dtypes():
    with pytest.raises(type_check.InvalidType, match=r"squared_difference \(Forward\)[\s\S]*x2.dtype == x1.dtype"):
        F.squared_difference(numpy.ones(3, numpy.float32), numpy.ones(3, numpy.float16))


def test_squared_difference_rejects_integer_inputs():
    with pytest.raises(type_check.InvalidType, match=r"x1.dtype.kind == f"):
        F.squared_difference(numpy.ones(3, numpy.int32), numpy.ones(3, numpy.int32))


def test_squared_difference_rejects_shapes_that_do_not_broadcast():
    with pytest.raises(type_check.InvalidType, match=r"x1.shape and x2.shape can be broadcast together"):
        F.squared_difference(numpy.ones((2, 3), numpy.float32), numpy.ones(2, numpy.float32))
