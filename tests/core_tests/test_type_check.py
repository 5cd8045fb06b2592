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
    assert calls == ["_LightTypeInfoTuple"]
    with pytest.raises(type_check.InvalidType) as info:
        type_check.run_check(check, (np.zeros(2, np.int32),), "MyFunc")
    assert calls[1:] == ["_LightTypeInfoTuple", "TypeInfoTuple"]
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
