"""Scaffolding shared by math function tests whose functions come in families.

``bias``/``scale`` (a second operand laid along axes of the first), ``maximum``/``minimum``/
``fmod`` (broadcasting binary functions) and ``ceil``/``fix``/``floor`` (rounding) are each
tested the same way. Their test modules name the function and write its reference with
NumPy or the ``math`` module; this module holds what a family shares: tolerances, input
generation, and the checks of argument errors, each taking the function under test.

The mixins are plain classes, listed before ``testing.FunctionTestCase``, so that pytest does
not collect them where a test module imports them.
"""

import numpy
import pytest

import chainer
from chainer.utils import type_check

BACKENDS = [{}, {"use_cuda": True}]
DTYPES = [numpy.float16, numpy.float32, numpy.float64]
FORWARD_TOL = {
    numpy.float16: {"atol": 1e-3, "rtol": 5e-3},
    numpy.float32: {"atol": 1e-6, "rtol": 1e-5},
    numpy.float64: {"atol": 1e-13, "rtol": 1e-12},
}
# Numerical gradients are computed in float64; for float64 a smaller step keeps the
# truncation error of central differences below the tolerance.
BACKWARD_TOL = {
    numpy.float16: {"atol": 1e-2, "rtol": 1e-2},
    numpy.float32: {"atol": 1e-4, "rtol": 1e-3},
    numpy.float64: {"eps": 1e-4, "atol": 1e-6, "rtol": 1e-5},
}
DOUBLE_BACKWARD_TOL = {
    numpy.float16: {"atol": 5e-2, "rtol": 5e-2},
    numpy.float32: {"atol": 1e-3, "rtol": 1e-2},
    numpy.float64: {"eps": 1e-4, "atol": 1e-6, "rtol": 1e-5},
}


class DtypeTolerancesMixin:
    """The tolerances above for a FunctionTestCase parameterized by ``dtype``."""

    def setUp(self):
        self.check_forward_options = FORWARD_TOL[self.dtype]
        self.check_backward_options = BACKWARD_TOL[self.dtype]
        self.check_double_backward_options = DOUBLE_BACKWARD_TOL[self.dtype]


def scalar_reference(f):
    """An elementwise float64 reference from a function of Python floats."""
    vectorized = numpy.vectorize(f, otypes=[numpy.float64])
    return lambda *xs: vectorized(*[x.astype(numpy.float64) for x in xs])


class UnaryTableMixin(DtypeTolerancesMixin):
    """A FunctionTestCase of the unary function named by the parameter ``name`` in the
    class's ``table``: ``{name: (function, reference, (low, high) of the inputs)}``."""

    table: dict = {}

    def setUp(self):
        super().setUp()
        self.function, self.reference, self.domain = self.table[self.name]

    def generate_inputs(self):
        return (numpy.random.uniform(*self.domain, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        return (self.function(*inputs),)

    def forward_expected(self, inputs):
        return (self.reference(*inputs).astype(self.dtype),)


class BinaryMixin(DtypeTolerancesMixin):
    """Parameterized by ``shapes`` (two shapes that broadcast) and ``dtype``; inputs uniform in [-1, 1)."""

    def generate_inputs(self):
        return tuple(numpy.random.uniform(-1, 1, shape).astype(self.dtype) for shape in self.shapes)


# (shape of x, shape of y, axis) for bias and scale.
AXIS_CASES = [
    ((3, 2, 4), (2,), 1),
    ((3, 2, 4), (2, 4), 1),
    ((3, 2, 4), (3,), 0),
    ((3, 2, 4), (4,), 2),
    ((3, 2), (3, 2), 0),
    ((3, 2), (), 1),
]


class AxisOperandMixin(DtypeTolerancesMixin):
    """For ``f(x, y, axis)``: parameterized by ``case`` (one of AXIS_CASES) and ``dtype``."""

    def setUp(self):
        self.x_shape, self.y_shape, self.axis = self.case
        super().setUp()

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, self.x_shape).astype(self.dtype)
        y = numpy.asarray(numpy.random.uniform(-1, 1, self.y_shape), self.dtype)
        return x, y


def along_axis(y, ndim, axis):
    """``y`` reshaped so that its axes stand at axis, axis + 1, ... of an array with ``ndim`` axes."""
    return y.reshape((1,) * axis + y.shape + (1,) * (ndim - axis - y.ndim))


class RoundingMixin:
    """For ceil, fix and floor: parameterized by ``shape`` and ``dtype``; exact forward results."""

    # Piecewise constant: the backward check confirms a zero gradient away from the
    # jumps; there is no gradient to differentiate a second time (as in Chainer).
    dodge_nondifferentiable = True
    skip_double_backward_test = True

    def setUp(self):
        self.check_forward_options = {"atol": 0, "rtol": 0}

    def generate_inputs(self):
        return (numpy.random.uniform(-4, 4, self.shape).astype(self.dtype),)


def per_element(f, x):
    """``float(f(v))`` for every element of ``x``, in float64: a reference from a scalar function."""
    return numpy.vectorize(lambda v: float(f(v)), otypes=[numpy.float64])(x.astype(numpy.float64))


def assert_no_gradient(function):
    x = chainer.Variable(numpy.array([-1.5, -0.5, 1.0, 2.5], numpy.float32))
    y = function(x)
    assert y.dtype == numpy.float32
    assert chainer.grad([y], [x], grad_outputs=[numpy.ones(4, numpy.float32)]) == [None]


def assert_gradient_follows_selection(function, x1_selected):
    """For maximum/minimum: the gradient of ``function(x1, x2)`` reaches x1 where ``x1_selected``
    (a (2, 3) mask) is 1 and x2 elsewhere, with x1 = [1, 2, 3] broadcast against
    x2 = [[2, 2, 3], [0, 4, 5]] (ties at [0, 1] and [0, 2])."""
    x1 = chainer.Variable(numpy.array([1.0, 2.0, 3.0], numpy.float32))
    x2 = chainer.Variable(numpy.array([[2.0, 2.0, 3.0], [0.0, 4.0, 5.0]], numpy.float32))
    g1, g2 = chainer.grad([function(x1, x2)], [x1, x2], grad_outputs=[numpy.ones((2, 3), numpy.float32)])
    x1_selected = numpy.asarray(x1_selected, numpy.float32)
    assert numpy.array_equal(g2.array, 1 - x1_selected)
    assert numpy.array_equal(g1.array, x1_selected.sum(axis=0))


# Argument errors. ``name`` is the function's name in the message and ``names`` the input
# names that its type check reports, in order. Apart from the broadcasting check the inputs
# are a (2, 3) and a (3,) array (for bias and scale: y along axis 1 of x).


def assert_rejects_mixed_dtypes(function, name, names):
    first, second = names
    with pytest.raises(type_check.InvalidType, match=rf"{name} \(Forward\)[\s\S]*{second}.dtype == {first}.dtype"):
        function(numpy.ones((2, 3), numpy.float32), numpy.ones(3, numpy.float64))


def assert_rejects_integer_inputs(function, name, names):
    inputs = [numpy.ones((2, 3), numpy.int32), numpy.ones(3, numpy.int32)][: len(names)]
    with pytest.raises(type_check.InvalidType, match=rf"{name} \(Forward\)[\s\S]*{names[0]}.dtype.kind == f"):
        function(*inputs)


def assert_rejects_shapes_that_do_not_broadcast(function, name, names):
    first, second = names
    with pytest.raises(
        type_check.InvalidType, match=rf"{name} \(Forward\)[\s\S]*{first}.shape and {second}.shape can be broadcast"
    ):
        function(numpy.ones((2, 3), numpy.float32), numpy.ones(2, numpy.float32))


def assert_rejects_a_y_off_the_axes_of_x(function, name):
    x = numpy.ones((3, 2, 4), numpy.float32)
    with pytest.raises(type_check.InvalidType, match=rf"{name} \(Forward\)[\s\S]*x.shape\[1:1 \+ y.ndim\] == y.shape"):
        function(x, numpy.ones(4, numpy.float32))
    with pytest.raises(type_check.InvalidType, match=r"x.shape\[2:2 \+ y.ndim\] == y.shape"):
        function(x, numpy.ones((4, 1), numpy.float32), axis=2)
    # In debug mode Chainer 7 asserted the shapes: an AssertionError.
    with chainer.using_config("debug", True):
        with pytest.raises(
            AssertionError, match=rf"chainer.functions.{name}: y.shape \(2,\) must equal x.shape\[0:1\] \(x.shape is"
        ):
            function(x, numpy.ones(2, numpy.float32), axis=0)


def assert_rejects_a_bad_axis(function, name, axis):
    error = ValueError if axis == -1 else TypeError
    with pytest.raises(error, match=rf"chainer.functions.{name}: axis must be"):
        function(numpy.ones((2, 3), numpy.float32), numpy.ones(3, numpy.float32), axis=axis)


def assert_default_axis_is_one(function):
    x = numpy.ones((2, 3), numpy.float32)
    y = numpy.array([1.0, 2.0, 3.0], numpy.float32)
    assert numpy.array_equal(function(x, y).array, function(x, y, axis=1).array)


def assert_gradient_is_a_masked_node(function, grad_class, first_chosen):
    """The gradient of maximum/minimum: one node of ``grad_class`` per operand passing the
    output gradient where that operand was chosen (``first_chosen(x1, x2)``)."""
    x1_data = numpy.array([1.0, 4.0, 2.0])
    x2_data = numpy.array([3.0, 0.0, 2.0])
    gy = numpy.array([1.0, 2.0, 3.0])
    x1, x2 = chainer.Variable(x1_data), chainer.Variable(x2_data)
    g1, g2 = chainer.grad(
        [function(x1, x2)], [x1, x2], grad_outputs=[chainer.Variable(gy)], enable_double_backprop=True
    )
    assert isinstance(g1.creator, grad_class)
    chosen = first_chosen(x1_data, x2_data)
    numpy.testing.assert_array_equal(g1.array, numpy.where(chosen, gy, 0))
    numpy.testing.assert_array_equal(g2.array, numpy.where(chosen, 0, gy))
