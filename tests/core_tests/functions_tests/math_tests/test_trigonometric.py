import math

import _math_testlib as testlib
import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.utils import type_check

# name: (function, reference, (low, high) of the inputs)
UNARY = {
    "sin": (F.sin, testlib.scalar_reference(math.sin), (-4, 4)),
    "cos": (F.cos, testlib.scalar_reference(math.cos), (-4, 4)),
    "tan": (F.tan, testlib.scalar_reference(math.tan), (-1.2, 1.2)),
    "arcsin": (F.arcsin, testlib.scalar_reference(math.asin), (-0.9, 0.9)),
    "arccos": (F.arccos, testlib.scalar_reference(math.acos), (-0.9, 0.9)),
    "arctan": (F.arctan, testlib.scalar_reference(math.atan), (-3, 3)),
}


@testing.fix_random()
@testing.parameterize(*testing.product({"name": sorted(UNARY), "shape": [(), (3, 2)], "dtype": testlib.DTYPES}))
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestUnaryTrigonometric(testlib.UnaryTableMixin, testing.FunctionTestCase):
    table = UNARY


@testing.fix_random()
@testing.parameterize(
    *testing.product(
        {"shapes": [((), ()), ((3, 2), (3, 2)), ((3, 2), (2,)), ((3, 1), (1, 2))], "dtype": testlib.DTYPES}
    )
)
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestArctan2(testlib.DtypeTolerancesMixin, testing.FunctionTestCase):
    def generate_inputs(self):
        # Keep away from the origin, where the gradient blows up, and from the negative
        # x axis, where the angle jumps from pi to -pi.
        shape1, shape2 = self.shapes
        x1 = numpy.random.choice([-1, 1], shape1) * numpy.random.uniform(0.5, 2, shape1)
        x2 = numpy.random.uniform(0.2, 2, shape2)
        return numpy.asarray(x1, self.dtype), numpy.asarray(x2, self.dtype)

    def forward(self, inputs, device):
        return (F.arctan2(*inputs),)

    def forward_expected(self, inputs):
        return (testlib.scalar_reference(math.atan2)(*inputs).astype(self.dtype),)


def test_arctan2_quadrants():
    y = numpy.array([1, 1, -1, -1], numpy.float32)
    x = numpy.array([1, -1, -1, 1], numpy.float32)
    expected = numpy.array([1, 3, -3, -1], numpy.float32) * numpy.float32(math.pi / 4)
    testing.assert_allclose(F.arctan2(y, x).array, expected, atol=0, rtol=1e-6)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_rejects_integer_input(name):
    function = UNARY[name][0]
    with pytest.raises(type_check.InvalidType, match=rf"{name} \(Forward\)[\s\S]*x.dtype.kind == f"):
        function(numpy.arange(3, dtype=numpy.int32))


def test_arctan2_rejects_mixed_dtypes():
    with pytest.raises(type_check.InvalidType, match=r"arctan2 \(Forward\)[\s\S]*x2.dtype == x1.dtype"):
        F.arctan2(numpy.ones(3, numpy.float32), numpy.ones(3, numpy.float64))


def test_arctan2_rejects_integer_inputs():
    with pytest.raises(type_check.InvalidType, match=r"x1.dtype.kind == f"):
        F.arctan2(numpy.ones(3, numpy.int64), numpy.ones(3, numpy.int64))


def test_arctan2_rejects_shapes_that_do_not_broadcast():
    with pytest.raises(type_check.InvalidType, match=r"x1.shape and x2.shape can be broadcast together"):
        F.arctan2(numpy.ones((3, 2), numpy.float32), numpy.ones(3, numpy.float32))


def test_tan_keeps_only_its_output_for_backward():
    x = chainer.Variable(numpy.zeros(3, numpy.float32))
    y = F.tan(x)
    assert y.creator.inputs[0].data is None
    assert y.node.data is not None


@pytest.mark.parametrize(
    ("name", "grad_class", "first", "second"),
    [
        ("sin", "SinGrad", numpy.cos, lambda v: -numpy.sin(v)),
        ("cos", "CosGrad", lambda v: -numpy.sin(v), lambda v: -numpy.cos(v)),
        ("arcsin", "ArcsinGrad", lambda v: (1 - v * v) ** -0.5, lambda v: v * (1 - v * v) ** -1.5),
        ("arccos", "ArccosGrad", lambda v: -((1 - v * v) ** -0.5), lambda v: -v * (1 - v * v) ** -1.5),
        ("arctan", "ArctanGrad", lambda v: 1 / (1 + v * v), lambda v: -2 * v / (1 + v * v) ** 2),
    ],
)
def test_gradient_nodes_of_chainer_7(name, grad_class, first, second):
    # Each gradient is one node of chainer.functions.math.trigonometric (Chainer 7's
    # classes) whose own gradient is the second derivative.
    from chainer.functions.math import trigonometric

    x = chainer.Variable(numpy.linspace(-0.9, 0.9, 7))
    (gx,) = chainer.grad([getattr(F, name)(x)], [x], grad_outputs=[numpy.ones(7)], enable_double_backprop=True)
    assert isinstance(gx.creator, getattr(trigonometric, grad_class))
    numpy.testing.assert_allclose(gx.array, first(x.array), rtol=1e-12)
    (ggx,) = chainer.grad([gx], [x], grad_outputs=[numpy.ones(7)])
    numpy.testing.assert_allclose(ggx.array, second(x.array), rtol=1e-10, atol=1e-12)


def test_arctan2_gradient_node_and_its_second_derivatives():
    from chainer.functions.math import trigonometric

    x1 = chainer.Variable(numpy.array([[0.5, -1.0, 2.0]]))
    x2 = chainer.Variable(numpy.array([[1.5], [-0.5]]))
    gy = chainer.Variable(numpy.random.uniform(-1, 1, (2, 3)))
    g1, g2 = chainer.grad([F.arctan2(x1, x2)], [x1, x2], grad_outputs=[gy], enable_double_backprop=True)
    assert isinstance(g1.creator, trigonometric.Arctan2Grad)
    a, b = numpy.broadcast_arrays(x1.array, x2.array)
    r2 = a * a + b * b
    numpy.testing.assert_allclose(g1.array, (gy.array * b / r2).sum(axis=0, keepdims=True), rtol=1e-12)
    numpy.testing.assert_allclose(g2.array, (-gy.array * a / r2).sum(axis=1, keepdims=True), rtol=1e-12)
    # The mixed derivatives against central differences of the first-order gradients.
    w1 = numpy.random.uniform(-1, 1, x1.shape)
    w2 = numpy.random.uniform(-1, 1, x2.shape)
    h1, h2, hgy = chainer.grad([F.sum(g1 * w1) + F.sum(g2 * w2)], [x1, x2, gy])

    def objective(v1, v2, g):
        s1, s2 = numpy.broadcast_arrays(v1, v2)
        q = s1 * s1 + s2 * s2
        return ((g * s2 / q).sum(axis=0, keepdims=True) * w1).sum() + (
            (-g * s1 / q).sum(axis=1, keepdims=True) * w2
        ).sum()

    args = [x1.array, x2.array, gy.array]
    for k, analytic in enumerate((h1, h2, hgy)):
        numeric = numpy.zeros_like(args[k])
        for index in numpy.ndindex(*args[k].shape):
            up = [a.copy() for a in args]
            down = [a.copy() for a in args]
            up[k][index] += 1e-6
            down[k][index] -= 1e-6
            numeric[index] = (objective(*up) - objective(*down)) / 2e-6
        numpy.testing.assert_allclose(analytic.array, numeric, rtol=1e-6, atol=1e-8)
