"""Messages of chainer.utils.type_check, as the docs' "Type Checks" section shows them."""

import numpy as np
import pytest

from chainer.utils import type_check


def _types(*arrays):
    return type_check.get_types(arrays, "in_types", False)


def _message(*conditions):
    with pytest.raises(type_check.InvalidType) as info:
        type_check.expect(*conditions)
    return str(info.value)


def test_docs_ndim_message():
    (x_type,) = _types(np.zeros((1, 2, 3)))
    assert _message(x_type.ndim == 2) == "Expect: in_types[0].ndim == 2\nActual: 3 != 2"


def test_docs_dtype_message():
    (x_type,) = _types(np.zeros(3, np.float32))
    assert _message(x_type.dtype == np.float64) == (
        "Expect: in_types[0].dtype == <class 'numpy.float64'>\nActual: float32 != <class 'numpy.float64'>"
    )


def test_docs_arithmetic_message():
    x_type, y_type = _types(np.zeros((3,)), np.zeros((1,)))
    assert _message(x_type.shape[0] == y_type.shape[0] * 4) == (
        "Expect: in_types[0].shape[0] == in_types[1].shape[0] * 4\nActual: 3 != 4"
    )


def test_docs_named_variable_message():
    (x_type,) = _types(np.zeros((3,)))
    in_size = type_check.Variable(4, "in_size")
    assert _message(x_type.shape[0] == in_size) == "Expect: in_types[0].shape[0] == in_size\nActual: 3 != 4"


def test_docs_function_call_message():
    (x_type,) = _types(np.zeros((3, 4)))
    total = type_check.Variable(np.sum, "sum")
    assert _message(total(x_type.shape) == 10) == "Expect: sum(in_types[0].shape) == 10\nActual: 7 != 10"


def test_size_and_lazy_evaluation():
    in_types = _types(np.zeros(()), np.zeros(()))
    assert _message(in_types.size() == 1) == "Expect: in_types.size() == 1\nActual: 2 != 1"
    (x_type,) = _types(np.zeros(()))
    # shape[1] of a 0-dim array is never evaluated because ndim fails first.
    assert "in_types[0].ndim == 3" in _message(x_type.ndim == 3, x_type.shape[1] == 2)


def test_comparison_operators_and_parentheses():
    (x_type,) = _types(np.zeros((2, 3)))
    assert _message(x_type.shape[0] > 5) == "Expect: in_types[0].shape[0] > 5\nActual: 2 <= 5"
    assert _message(x_type.shape[0] - (x_type.shape[1] - 2) >= 2) == (
        "Expect: in_types[0].shape[0] - (in_types[0].shape[1] - 2) >= 2\nActual: 1 < 2"
    )


def test_eval_and_expr_cannot_be_bool():
    (x_type,) = _types(np.zeros((2, 3)))
    assert type_check.eval(x_type.shape) == (2, 3)
    assert type_check.eval(5) == 5
    with pytest.raises(RuntimeError, match="cannot be used as a bool"):
        bool(x_type.ndim == 2)


def test_argname_renames_and_counts():
    in_types = _types(np.zeros(2))
    type_check._argname(in_types, ("x",))
    assert _message(in_types[0].ndim == 2) == "Expect: x.ndim == 2\nActual: 1 != 2"
    with pytest.raises(type_check.InvalidType, match=r"2 argument\(s\): x, W"):
        type_check._argname(in_types, ("x", "W"))


def test_run_check_light_mode_then_full_message():
    calls = []

    def check(in_types):
        calls.append(type(in_types).__name__)
        type_check._argname(in_types, ("x",))
        type_check.expect(in_types[0].dtype.kind == "f")

    type_check.run_check(check, (np.zeros(2, np.float32),), "F")
    assert calls == ["LightTypeInfoTuple"]
    with pytest.raises(type_check.InvalidType) as info:
        type_check.run_check(check, (np.zeros(2, np.int32),), "MyFunc")
    assert calls[1:] == ["LightTypeInfoTuple", "TypeInfoTuple"]
    assert str(info.value) == (
        "\nInvalid operation is performed in: MyFunc (Forward)\n\nExpect: x.dtype.kind == f\nActual: i != f"
    )


def test_make_variable_in_both_modes():
    def check(in_types):
        size = type_check.make_variable(3, "size")
        type_check.expect(in_types[0].shape[0] == size)

    type_check.run_check(check, (np.zeros(3),), "F")
    with pytest.raises(type_check.InvalidType, match=r"in_types\[0\].shape\[0\] == size"):
        type_check.run_check(check, (np.zeros(4),), "F")


def test_broadcast_shapes():
    def check(in_types):
        type_check.expect_broadcast_shapes(in_types[0].shape, in_types[1].shape)

    type_check.run_check(check, (np.zeros((2, 1)), np.zeros(3)), "F")
    with pytest.raises(type_check.InvalidType, match=r"\(2, 3\) and \(4,\) cannot"):
        type_check.run_check(check, (np.zeros((2, 3)), np.zeros(4)), "F")


def test_invalid_type_is_picklable():
    import pickle

    err = type_check.InvalidType("a", "b")
    clone = pickle.loads(pickle.dumps(err))
    assert (clone.expect, clone.actual, str(clone)) == ("a", "b", str(err))


# -- the expression classes, which code written for Chainer builds by hand -----------------


def test_operator_printing_follows_python_precedence_and_associativity():
    x = type_check.Variable(1, "x")
    y = type_check.Variable(2, "y")
    # Parentheses exactly where Python needs them to parse the same tree.
    assert str(x + (x - y)) == "x + (x - y)"
    assert str((x + x) - y) == "x + x - y"
    assert str(x ** (x**y)) == "x ** x ** y"  # ** groups to the right
    assert str((x**x) ** y) == "(x ** x) ** y"
    assert str(-(x**y)) == "-x ** y"  # ** binds tighter than unary minus
    assert str((-x) ** y) == "(-x) ** y"
    assert str(-(x + y)) == "-(x + y)"
    assert str(1 - x) == "1 - x"
    assert (x | y).priority < (x ^ y).priority < (x & y).priority < (x << y).priority
    assert (x << y).priority < (x + y).priority < (x * y).priority < (-x).priority < (x**y).priority < x.priority


def test_hand_built_operators_take_chainers_arguments():
    x = type_check.Variable(3, "x")
    y = type_check.Variable(4, "y")
    # BinaryOperator(priority, lhs, rhs, exp, func, right_associative)
    op = type_check.BinaryOperator(x.priority, x, y, "+", lambda a, b: a * 10 + b)
    assert str(op) == "x + (y)" and op.eval() == 34
    assert str(type_check.BinaryOperator(x.priority, x, y, "+", None, True)) == "(x) + y"
    # UnaryOperator(priority, term, exp, func)
    neg = type_check.UnaryOperator(x.priority + 1, x, "-", lambda a: -a)
    assert str(neg) == "-(x)" and neg.eval() == -3
    # BoolBinaryOperator(lhs, rhs, exp, inv, func): `inv` words the failure.
    cmp = type_check.BoolBinaryOperator(x, y, "<", ">=", lambda a, b: a > b)
    with pytest.raises(type_check.InvalidType) as info:
        cmp.expect()
    assert (info.value.expect, info.value.actual) == ("x < y", "3 >= 4")
    with pytest.raises(RuntimeError, match="cannot be used as a bool"):
        bool(cmp)


def test_attribute_item_and_call_expressions():
    class Obj:
        value = 10

    o = type_check.Variable(Obj(), "o")
    assert str(type_check.GetAttr(o, "value")) == "o.value" and type_check.GetAttr(o, "value").eval() == 10
    assert str(type_check.GetAttr(o, type_check.Constant("value"))) == "o.value"
    assert str(type_check.GetAttr(o, 3)) == "getattr(o, 3)"
    seq = type_check.Variable([5, 6, 7], "s")
    assert [str(seq[i]) for i in (1, slice(None), slice(1, None, 2), Ellipsis, (0, 1))] == [
        "s[1]",
        "s[:]",
        "s[1::2]",
        "s[...]",
        "s[0, 1]",
    ]
    assert seq[1:].eval() == [6, 7]
    assert str(type_check.Variable({"a": 1}, "d")["a"]) == "d['a']"
    total = type_check.Variable(sum, "sum")
    assert str(total(["", 1])) == "sum(['', 1])"
    with pytest.raises(TypeError):
        total(["", 1]).eval()  # evaluation is lazy: the error comes only now


def test_repr_and_evaluation_reach_into_lists_and_tuples():
    c = type_check.Constant
    assert type_check._repr([c(0), [c(1)]]) == "[0, [1]]"
    assert type_check._repr(()) == "()" and type_check._repr((c(0),)) == "(0,)"
    assert (c([0, [1]]) == [c(0), [c(1)]]).eval() is True
    assert str(type_check.prod([])) == "prod([])" and type_check.prod([2, 3]).eval() == 6


def test_full_mode_type_info_and_light_mode():
    (t,) = type_check.get_types((np.zeros((1, 2, 3), np.float32),), "name", False)
    assert isinstance(t, type_check.Expr)
    assert (t.shape[2].eval(), t.ndim.eval(), t.dtype.eval()) == (3, 3, np.float32)
    with pytest.raises(AssertionError):
        type_check.get_types([np.zeros(1)], "name", False)  # a tuple, as in Chainer
    assert not type_check.in_light_mode()
    with type_check.LightMode():
        assert type_check.in_light_mode()
        assert type_check.prod([2, 3]) == 6  # light mode computes instead of describing
        with pytest.raises(type_check.InvalidType):
            type_check.expect(True, np.bool_(False))
    assert not type_check.in_light_mode()
    light = type_check.get_light_types((np.zeros(2),), shapes=((5,),))
    assert isinstance(light, type_check.LightTypeInfoTuple) and light[0].shape == (5,)
