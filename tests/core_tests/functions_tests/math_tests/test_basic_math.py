"""The arithmetic operators of Variable (chainer.functions.math.basic_math)."""

import operator

import _math_testlib as testlib
import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import testing
from chainer.functions.math import basic_math
from chainer.utils import type_check


def _f64(*arrays):
    return [numpy.asarray(a, numpy.float64) for a in arrays]


# -- variable (op) variable --------------------------------------------------------------

BINARY = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "truediv": operator.truediv,
    "pow": operator.pow,
}


@testing.fix_random()
@testing.parameterize(
    *testing.product(
        {"op": sorted(BINARY), "shapes": [((3, 2), (3, 2)), ((3, 2), (2,)), ((), (3, 1))], "dtype": testlib.DTYPES}
    )
)
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestBinaryOperator(testlib.DtypeTolerancesMixin, testing.FunctionTestCase):
    def generate_inputs(self):
        shape1, shape2 = self.shapes
        if self.op == "pow":  # a positive base
            lhs = numpy.random.uniform(0.5, 2, shape1)
        else:
            lhs = numpy.random.uniform(-1, 1, shape1)
        if self.op == "truediv":  # a divisor away from zero
            rhs = numpy.random.choice([-1, 1], shape2) * numpy.random.uniform(0.5, 2, shape2)
        else:
            rhs = numpy.random.uniform(-1, 1, shape2)
        return numpy.asarray(lhs, self.dtype), numpy.asarray(rhs, self.dtype)

    def forward(self, inputs, device):
        y = BINARY[self.op](*inputs)
        assert isinstance(y, chainer.Variable)
        return (y,)

    def forward_expected(self, inputs):
        lhs, rhs = _f64(*inputs)
        return (numpy.asarray(BINARY[self.op](lhs, rhs), self.dtype),)


# -- variable (op) scalar and scalar (op) variable ---------------------------------------------

WITH_CONSTANT = {
    "x + c": lambda x, c: x + c,
    "c + x": lambda x, c: c + x,
    "x - c": lambda x, c: x - c,
    "c - x": lambda x, c: c - x,
    "x * c": lambda x, c: x * c,
    "c * x": lambda x, c: c * x,
    "x / c": lambda x, c: x / c,
    "c / x": lambda x, c: c / x,
    "x ** c": lambda x, c: x**c,
    "c ** x": lambda x, c: c**x,
}


@testing.fix_random()
@testing.parameterize(
    *testing.product(
        {
            "op": sorted(WITH_CONSTANT),
            "constant": [2.5, 3, numpy.float16(0.75)],
            "dtype": testlib.DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestOperatorWithScalar(testlib.DtypeTolerancesMixin, testing.FunctionTestCase):
    def generate_inputs(self):
        # Positive and away from zero: valid for every operator (c / x, x ** c).
        return (numpy.random.uniform(0.5, 2, (3, 2)).astype(self.dtype),)

    def forward(self, inputs, device):
        y = WITH_CONSTANT[self.op](inputs[0], self.constant)
        assert isinstance(y, chainer.Variable)
        return (y,)

    def forward_expected(self, inputs):
        (x,) = _f64(*inputs)
        return (numpy.asarray(WITH_CONSTANT[self.op](x, float(self.constant)), self.dtype),)


# -- variable (op) array and array (op) variable ---------------------------------------------


@testing.fix_random()
@testing.parameterize(
    *testing.product(
        {
            "op": sorted(WITH_CONSTANT),
            "array_dtype": [None, numpy.float64, numpy.int32],  # None: the variable's dtype
            "dtype": testlib.DTYPES,
        }
    )
)
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestOperatorWithArray(testlib.DtypeTolerancesMixin, testing.FunctionTestCase):
    """An array operand is a constant cast to the variable's dtype; the result keeps it."""

    def setUp(self):
        super().setUp()
        array_dtype = self.array_dtype or self.dtype
        if numpy.dtype(array_dtype).kind == "i":
            self.constant = numpy.array([1, 2], array_dtype)
        else:
            self.constant = numpy.array([0.75, 1.5], array_dtype)

    def generate_inputs(self):
        return (numpy.random.uniform(0.5, 2, (3, 2)).astype(self.dtype),)

    def forward(self, inputs, device):
        y = WITH_CONSTANT[self.op](inputs[0], device.send(self.constant))
        assert isinstance(y, chainer.Variable)
        return (y,)

    def forward_expected(self, inputs):
        (x,) = _f64(*inputs)
        (c,) = _f64(self.constant.astype(self.dtype))
        return (numpy.asarray(WITH_CONSTANT[self.op](x, c), self.dtype),)


# -- unary operators ----------------------------------------------------------------------------


@testing.fix_random()
@testing.parameterize(*testing.product({"op": ["neg", "abs"], "shape": [(), (3, 2)], "dtype": testlib.DTYPES}))
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestUnaryOperator(testing.FunctionTestCase):
    dodge_nondifferentiable = True  # abs at zero

    def setUp(self):
        self.check_forward_options = {"atol": 0, "rtol": 0}
        self.check_backward_options = testlib.BACKWARD_TOL[self.dtype]
        self.check_double_backward_options = testlib.DOUBLE_BACKWARD_TOL[self.dtype]

    def generate_inputs(self):
        return (numpy.random.uniform(-1, 1, self.shape).astype(self.dtype),)

    def forward(self, inputs, device):
        (x,) = inputs
        return (-x if self.op == "neg" else abs(x),)

    def forward_expected(self, inputs):
        (x,) = inputs
        return (numpy.asarray(-x if self.op == "neg" else numpy.where(x < 0, -x, x), self.dtype),)


# -- matrix product --------------------------------------------------------------------------------


@testing.fix_random()
@testing.parameterize(
    *testing.product(
        {"shapes": [((2, 3), (3, 4)), ((2, 2, 3), (3, 4)), ((3,), (3, 4)), ((2, 3), (3,))], "dtype": testlib.DTYPES}
    )
)
@testing.inject_backend_tests(None, testlib.BACKENDS)
class TestMatmulOperator(testing.FunctionTestCase):
    def setUp(self):
        self.check_forward_options = (
            {"atol": 5e-3, "rtol": 5e-3} if self.dtype == numpy.float16 else testlib.FORWARD_TOL[self.dtype]
        )
        self.check_backward_options = testlib.BACKWARD_TOL[self.dtype]
        self.check_double_backward_options = testlib.DOUBLE_BACKWARD_TOL[self.dtype]

    def generate_inputs(self):
        a_shape, b_shape = self.shapes
        return tuple(numpy.random.uniform(-1, 1, s).astype(self.dtype) for s in (a_shape, b_shape))

    def forward(self, inputs, device):
        a, b = inputs
        return (a @ b,)

    def forward_expected(self, inputs):
        a, b = _f64(*inputs)
        return (numpy.asarray(numpy.matmul(a, b), self.dtype),)


def test_matmul_with_an_array_on_either_side():
    x = chainer.Variable(numpy.arange(6, dtype=numpy.float32).reshape(2, 3))
    a = numpy.ones((3, 2), numpy.float32)
    left = x @ a
    right = a @ x
    assert isinstance(left, chainer.Variable) and isinstance(right, chainer.Variable)
    assert numpy.array_equal(left.array, x.array @ a)
    assert numpy.array_equal(right.array, a @ x.array)


def test_matmul_with_a_scalar_is_a_type_error():
    x = chainer.Variable(numpy.ones((2, 2), numpy.float32))
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for @"):
        x @ 2.0


# -- floor division ----------------------------------------------------------------------------


def test_floordiv_values_and_no_gradient():
    x = chainer.Variable(numpy.array([7.0, -7.0, 7.5], numpy.float32))
    d = chainer.Variable(numpy.array([2.0, 2.0, -2.0], numpy.float32))
    for y, expected in (
        (x // d, [3.0, -4.0, -4.0]),
        (x // 2, [3.0, -4.0, 3.0]),
        (15 // d, [7.0, 7.0, -8.0]),
        (x // numpy.full(3, 2.0), [3.0, -4.0, 3.0]),
        (numpy.full(3, 15.0) // d, [7.0, 7.0, -8.0]),
    ):
        assert y.dtype == numpy.float32
        assert numpy.array_equal(y.array, numpy.array(expected, numpy.float32))
    grads = chainer.grad([x // d], [x, d], grad_outputs=[numpy.ones(3, numpy.float32)])
    assert grads == [None, None]


def test_floordiv_rejects_mixed_dtypes():
    x = chainer.Variable(numpy.ones(3, numpy.float32))
    with pytest.raises(type_check.InvalidType, match=r"_ // _ \(Forward\)[\s\S]*rhs.dtype == lhs.dtype"):
        x // chainer.Variable(numpy.ones(3, numpy.float64))


# -- dtypes ----------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", testlib.DTYPES)
@pytest.mark.parametrize(
    "constant", [2, 2.5, True, numpy.float64(2.5), numpy.float32(2.5), numpy.int64(3), numpy.array(2.5)]
)
@pytest.mark.parametrize("op", sorted(WITH_CONSTANT))
def test_scalar_operands_keep_the_dtype_of_the_variable(dtype, constant, op):
    x = chainer.Variable(numpy.array([0.5, 1.5], dtype))
    y = WITH_CONSTANT[op](x, constant)
    assert y.dtype == dtype
    expected = WITH_CONSTANT[op](x.array.astype(numpy.float64), float(constant))
    testing.assert_allclose(y.array, expected.astype(dtype), **testlib.FORWARD_TOL[dtype])


def test_integer_variables_keep_their_dtype():
    x = chainer.Variable(numpy.array([1, 2, 3], numpy.int32))
    assert (x + 1).dtype == numpy.int32
    assert (-x).dtype == numpy.int32
    assert numpy.array_equal((x * 2 - 1).array, [1, 3, 5])


def test_array_operand_is_cast_to_the_variable_dtype_and_gets_no_gradient():
    x = chainer.Variable(numpy.array([1.0, 2.0], numpy.float16))
    a = numpy.array([0.5, 0.25], numpy.float64)
    y = x * a
    assert y.dtype == numpy.float16
    (gx,) = chainer.grad([y], [x], grad_outputs=[numpy.ones(2, numpy.float16)])
    assert gx.dtype == numpy.float16
    assert numpy.array_equal(gx.array, a.astype(numpy.float16))


def test_division_by_a_scalar_is_true_division():
    x = chainer.Variable(numpy.array([1.0, 3.0, 10.0], numpy.float32))
    for c in (3, 10.0, numpy.float32(3), numpy.float64(0.1)):
        assert numpy.array_equal((x / c).array, x.array / numpy.float32(c))
    with numpy.errstate(divide="ignore"):
        y = x / 0
    assert numpy.array_equal(y.array, numpy.full(3, numpy.inf, numpy.float32))


def test_numpy_scalar_constants_are_used_in_double_precision():
    # The gradient of c ** x is c ** x log(c); log(c) must not be rounded to float16.
    x = chainer.Variable(numpy.array([1.0]))
    c = numpy.float16(0.7)
    (gx,) = chainer.grad([c**x], [x], grad_outputs=[numpy.ones(1)])
    testing.assert_allclose(gx.array, numpy.array([float(c) * numpy.log(float(c))]), atol=0, rtol=1e-15)


@pytest.mark.parametrize("op", sorted(WITH_CONSTANT))
def test_an_array_operand_can_broadcast_the_variable(op):
    # The result takes the broadcast shape; the gradient is summed back to x's shape.
    x = chainer.Variable(numpy.array([0.5, 2.0]))
    a = numpy.array([[1.0, 2.0], [0.5, 1.5], [2.0, 0.25]])
    y = WITH_CONSTANT[op](x, a)
    assert y.shape == (3, 2)
    (gx,) = chainer.grad([y], [x], grad_outputs=[numpy.ones((3, 2))])
    eps = 1e-6
    numerical = (WITH_CONSTANT[op](x.array + eps, a) - WITH_CONSTANT[op](x.array - eps, a)).sum(axis=0) / (2 * eps)
    testing.assert_allclose(gx.array, numerical, atol=1e-8, rtol=1e-6)


# -- F.add ----------------------------------------------------------------------------------------


def test_add_many_variables_in_one_node():
    xs = [chainer.Variable(numpy.full((2,), float(i), numpy.float32)) for i in range(1, 5)]
    y = F.add(*xs)
    assert numpy.array_equal(y.array, numpy.array([10.0, 10.0], numpy.float32))
    assert len(y.creator.inputs) == 4
    grads = chainer.grad([y], xs, grad_outputs=[numpy.array([1.0, 2.0], numpy.float32)])
    for g in grads:
        assert numpy.array_equal(g.array, numpy.array([1.0, 2.0], numpy.float32))


def test_add_many_broadcasts_and_sums_gradients_back():
    a = chainer.Variable(numpy.ones((2, 3)))
    b = chainer.Variable(numpy.ones(3))
    c = chainer.Variable(numpy.ones((2, 1)))
    y = F.add(a, b, c)
    assert y.shape == (2, 3)
    ga, gb, gc = chainer.grad([y], [a, b, c], grad_outputs=[numpy.ones((2, 3))])
    assert ga.shape == (2, 3) and numpy.array_equal(gb.array, [2.0, 2.0, 2.0])
    assert numpy.array_equal(gc.array, [[3.0], [3.0]])


def test_add_of_two_accepts_a_scalar_on_either_side():
    x = chainer.Variable(numpy.array([1.0], numpy.float32))
    assert numpy.array_equal(F.add(x, 2.0).array, [3.0])
    assert numpy.array_equal(F.add(2.0, x).array, [3.0])


def test_add_argument_errors():
    x = chainer.Variable(numpy.ones(2, numpy.float32))
    with pytest.raises(TypeError, match=r"chainer.functions.add expects at least 1 argument, got 0"):
        F.add()
    with pytest.raises(TypeError, match=r"chainer.functions.add: with more than 2 arguments all must be"):
        F.add(x, x, 1.0)
    with pytest.raises(TypeError, match=r"chainer.functions.add: expected a variable or an array"):
        F.add(1.0, 2.0)
    with pytest.raises(type_check.InvalidType, match=r"_ \+ _ \(Forward\)[\s\S]*x2.dtype == x0.dtype"):
        F.add(x, x, chainer.Variable(numpy.ones(2, numpy.float64)))


def test_add_of_one_operand_is_that_operand():
    # As in Chainer 7, a sum of one term (generic code such as F.add(*terms)).
    a = numpy.array([1.5, -2.0], numpy.float32)
    y = F.add(a)
    assert isinstance(y, chainer.Variable)
    numpy.testing.assert_array_equal(y.array, [1.5, -2.0])


def test_absolute_function():
    assert numpy.array_equal(F.absolute(numpy.array([-1.5, 2.0])).array, [1.5, 2.0])


# -- errors ---------------------------------------------------------------------------------------

LABELS = {"add": r"_ \+ _", "sub": "_ - _", "mul": r"_ \* _", "truediv": "_ / _", "pow": r"_ \*\* _"}


@pytest.mark.parametrize("op", sorted(BINARY))
def test_variables_of_different_dtypes_are_rejected(op):
    x = chainer.Variable(numpy.ones(3, numpy.float32))
    y = chainer.Variable(numpy.ones(3, numpy.float64))
    with pytest.raises(type_check.InvalidType, match=rf"{LABELS[op]} \(Forward\)[\s\S]*Actual: float64 != float32"):
        BINARY[op](x, y)


@pytest.mark.parametrize("op", sorted(BINARY))
def test_shapes_that_do_not_broadcast_are_rejected(op):
    x = chainer.Variable(numpy.ones((2, 3), numpy.float32))
    y = chainer.Variable(numpy.ones((2,), numpy.float32))
    with pytest.raises(type_check.InvalidType, match=r"can be broadcast together[\s\S]*\(2, 3\) and \(2,\) cannot"):
        BINARY[op](x, y)


@pytest.mark.parametrize("op", sorted(BINARY))
def test_arrays_that_do_not_broadcast_are_rejected(op):
    x = chainer.Variable(numpy.ones((2, 3), numpy.float32))
    with pytest.raises(type_check.InvalidType, match=r"can be broadcast together"):
        BINARY[op](x, numpy.ones(2, numpy.float32))


@pytest.mark.parametrize("op", sorted(WITH_CONSTANT))
@pytest.mark.parametrize("other", ["a", None, [1.0, 2.0], 1j, numpy.complex64(1j), numpy.ones(2, numpy.complex64)])
def test_unsupported_operands_are_type_errors(op, other):
    # The message is Python's (or the other operand's, e.g. str * int): the operators
    # return NotImplemented for operands they do not support, as operators must.
    x = chainer.Variable(numpy.ones(2, numpy.float32))
    with pytest.raises(TypeError):
        WITH_CONSTANT[op](x, other)


def test_unsupported_operand_message_names_both_types():
    x = chainer.Variable(numpy.ones(2, numpy.float32))
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \+: 'Variable' and 'NoneType'"):
        x + None


@pytest.mark.parametrize(
    "op", [lambda x: x / x, lambda x: 1.0 / x, lambda x: x**2.0, lambda x: 2.0**x, lambda x: x**x, abs]
)
def test_operators_that_need_floating_inputs_reject_integers(op):
    x = chainer.Variable(numpy.arange(1, 4, dtype=numpy.int32))
    with pytest.raises(type_check.InvalidType, match=r"dtype.kind == f"):
        op(x)


# -- graphs -------------------------------------------------------------------------------------


def test_gradients_accumulate_over_repeated_uses():
    x = chainer.Variable(numpy.array([1.0, -2.0]))
    y = x * x + x * 3.0 - x / 2.0
    (gx,) = chainer.grad([y], [x], grad_outputs=[numpy.ones(2)])
    testing.assert_allclose(gx.array, 2 * x.array + 2.5, atol=0, rtol=1e-15)


def test_double_backprop_through_operators():
    x = chainer.Variable(numpy.array([0.5, 2.0]))
    y = x**3 / 3.0 + 2.0**x
    (gx,) = chainer.grad([y], [x], grad_outputs=[numpy.ones(2)], enable_double_backprop=True)
    (ggx,) = chainer.grad([gx], [x], grad_outputs=[numpy.ones(2)])
    expected = 2 * x.array + numpy.log(2.0) ** 2 * 2.0**x.array
    testing.assert_allclose(ggx.array, expected, atol=0, rtol=1e-13)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (2, "2"),
        (0, "0"),
        (-2, "(-2)"),
        (2.5, "2.5"),
        (-0.5, "(-0.5)"),
        (numpy.float32(2), "2.0"),
        (numpy.int64(-3), "(-3)"),
        (numpy.array([1, 2]), "constant array"),
        (chainer.Variable(numpy.array([1.0, 2.0])), "constant array"),
    ],
)
def test_constant_operands_in_labels(value, text):
    # Chainer 7's spelling of a constant in a node label: negative numbers parenthesized,
    # arrays as "constant array".
    assert basic_math._convert_value_to_string(value) == text
    assert basic_math.AddConstant(value).label == f"_ + {text}"


def test_basic_math_is_reachable_as_chainer_basic_math():
    assert chainer.basic_math is basic_math
    assert basic_math.PowConstVar(2.0).label == "2.0 ** _"


@pytest.mark.parametrize(
    ("op", "grad_class", "first", "second"),
    [
        (abs, "AbsoluteGrad", numpy.sign, lambda v: numpy.zeros_like(v)),
        (lambda v: 3.0 / v, "DivFromConstantGrad", lambda v: -3.0 / v**2, lambda v: 6.0 / v**3),
        (lambda v: v**2.5, "PowVarConstGrad", lambda v: 2.5 * v**1.5, lambda v: 3.75 * v**0.5),
        (lambda v: v**2, "PowVarConstGrad", lambda v: 2 * v, lambda v: numpy.full_like(v, 2.0)),
        (
            lambda v: 1.5**v,
            "PowConstVarGrad",
            lambda v: 1.5**v * numpy.log(1.5),
            lambda v: 1.5**v * numpy.log(1.5) ** 2,
        ),
    ],
)
def test_unary_gradient_nodes_of_chainer_7(op, grad_class, first, second):
    # The gradient of each operator is one node named as in Chainer 7, whose own
    # gradient is the second derivative.
    x = chainer.Variable(numpy.array([0.5, 1.25, 2.0, 3.5]))
    (gx,) = chainer.grad([op(x)], [x], grad_outputs=[numpy.ones(4)], enable_double_backprop=True)
    assert isinstance(gx.creator, getattr(basic_math, grad_class))
    numpy.testing.assert_allclose(gx.array, first(x.array), rtol=1e-12)
    (ggx,) = chainer.grad([gx], [x], grad_outputs=[numpy.ones(4)])
    if ggx is not None:
        numpy.testing.assert_allclose(ggx.array, second(x.array), rtol=1e-12)
    else:
        assert not second(x.array).any()


@pytest.mark.parametrize(
    ("op", "grad_class", "grads"),
    [
        (lambda a, b: a / b, "DivGrad", lambda a, b: (1 / b, -a / b**2)),
        (lambda a, b: a**b, "PowVarVarGrad", lambda a, b: (b * a ** (b - 1), a**b * numpy.log(a))),
    ],
)
def test_binary_gradient_nodes_of_chainer_7(op, grad_class, grads):
    x0 = chainer.Variable(numpy.array([[0.5, 1.5, 2.5]]))
    x1 = chainer.Variable(numpy.array([[1.25], [0.75]]))
    gy = chainer.Variable(numpy.random.uniform(-1, 1, (2, 3)))
    g0, g1 = chainer.grad([op(x0, x1)], [x0, x1], grad_outputs=[gy], enable_double_backprop=True)
    assert isinstance(g0.creator, getattr(basic_math, grad_class))
    a, b = numpy.broadcast_arrays(x0.array, x1.array)
    d0, d1 = grads(a, b)
    numpy.testing.assert_allclose(g0.array, (gy.array * d0).sum(axis=0, keepdims=True), rtol=1e-12)
    numpy.testing.assert_allclose(g1.array, (gy.array * d1).sum(axis=1, keepdims=True), rtol=1e-12)
    # Second order: against central differences of the first-order gradients.
    w0 = numpy.random.uniform(-1, 1, x0.shape)
    w1 = numpy.random.uniform(-1, 1, x1.shape)
    analytic = chainer.grad([F.sum(g0 * w0) + F.sum(g1 * w1)], [x0, x1, gy])

    def objective(v0, v1, g):
        s0, s1 = numpy.broadcast_arrays(v0, v1)
        e0, e1 = grads(s0, s1)
        return ((g * e0).sum(axis=0, keepdims=True) * w0).sum() + ((g * e1).sum(axis=1, keepdims=True) * w1).sum()

    args = [x0.array, x1.array, gy.array]
    for k in range(3):
        numeric = numpy.zeros_like(args[k])
        for index in numpy.ndindex(*args[k].shape):
            up = [v.copy() for v in args]
            down = [v.copy() for v in args]
            up[k][index] += 1e-6
            down[k][index] -= 1e-6
            numeric[index] = (objective(*up) - objective(*down)) / 2e-6
        numpy.testing.assert_allclose(analytic[k].array, numeric, rtol=1e-6, atol=1e-8)


def test_add_of_three_or_more_is_one_multi_add_node():
    xs = [chainer.Variable(numpy.full(2, float(v))) for v in (1, 2, 3)]
    y = F.add(*xs)
    assert isinstance(y.creator, basic_math.MultiAdd)
    numpy.testing.assert_array_equal(y.array, [6.0, 6.0])


def test_install_variable_arithmetics_reinstalls_the_operators():
    saved = chainer.Variable.__add__
    try:
        chainer.Variable.__add__ = None
        basic_math.install_variable_arithmetics()
        x = chainer.Variable(numpy.array([1.0]))
        numpy.testing.assert_array_equal((x + x).array, [2.0])
    finally:
        chainer.Variable.__add__ = saved


# -- type checks remembered per input signature (issue 22) -------------------------------------


@pytest.mark.parametrize("op", [operator.add, operator.mul, operator.truediv, operator.pow], ids=lambda f: f.__name__)
def test_a_signature_that_fails_the_check_fails_after_others_passed(op):
    # The check of two variables is remembered per shapes and dtypes: a new pair that does
    # not broadcast, or mixes dtypes, is still refused, however often others passed.
    def var(shape, dtype=numpy.float32):
        return chainer.Variable(numpy.ones(shape, dtype))

    for _ in range(2):
        op(var(3), var(3))
        op(var((2, 3)), var(3))
    for _ in range(2):
        with pytest.raises(type_check.InvalidType, match="Expect: "):
            op(var(3), var(4))
        with pytest.raises(type_check.InvalidType, match="Expect: "):
            op(var(3), var(3, numpy.float64))
    if op in (operator.truediv, operator.pow):
        with pytest.raises(type_check.InvalidType, match=r"dtype\.kind == f"):
            op(var(3, numpy.int32), var(3, numpy.int32))
