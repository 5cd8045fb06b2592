import numpy
import pytest

from chainer.dataset import tabular


def test_single_unnamed_column():
    t = tabular.from_data(numpy.arange(4) * 2)
    assert len(t.keys) == 1 and t.mode is None and len(t) == 4
    assert t[3] == 6 and t[1:3] == [2, 4]


def test_single_named_column_and_list():
    t = tabular.from_data(("x", ["p", "q"]))
    assert t.keys == ("x",) and t.mode is None
    assert t[1] == "q"


def test_tuple_of_columns_with_and_without_names():
    square = lambda i: i * i
    t = tabular.from_data((numpy.arange(3), ("sq", square), [7, 8, 9]))
    assert t.keys[1] == "sq" and len(set(t.keys)) == 3 and t.mode is tuple
    assert t[2] == (2, 4, 9)
    assert t.slice[::-1, "sq"].fetch() == [4, 1, 0]
    numpy.testing.assert_array_equal(t.fetch()[0], [0, 1, 2])


def test_dict_of_columns():
    t = tabular.from_data({"a": [1, 2], "b": lambda i: -i})
    assert t.keys == ("a", "b") and t.mode is dict
    assert t[1] == {"a": 2, "b": -1}


def test_callables_need_a_size():
    t = tabular.from_data(("f", lambda i: i + 100), size=3)
    assert len(t) == 3 and t.fetch() == [100, 101, 102]
    with pytest.raises(ValueError, match="pass size="):
        tabular.from_data(("f", lambda i: i))
    with pytest.raises(ValueError, match="a function column needs a key"):
        tabular.from_data(lambda i: i, size=3)


def test_unnamed_columns_of_separate_datasets_can_be_joined():
    a, b = tabular.from_data(numpy.arange(3)), tabular.from_data([5, 6, 7])
    assert a.keys != b.keys
    assert a.join(b)[2] == (2, 7)


def test_function_of_several_keys():
    t = tabular.from_data((("sq", "neg"), lambda i: (i * i, -i)), size=4)
    assert t.keys == ("sq", "neg") and t.mode is tuple and t[3] == (9, -3)
    t = tabular.from_data((("sq", "neg"), lambda i: {"neg": -i, "sq": i * i}), size=4)
    assert t.mode is dict and t.slice[[1, 2]].fetch() == {"sq": [1, 4], "neg": [-1, -2]}
    # Inside a tuple or dict of columns, its keys are columns of the table.
    t = tabular.from_data({"x": numpy.arange(3), ("a", "b"): lambda i: (i + 1, i + 2)})
    assert t.keys == ("x", "a", "b") and t.mode is dict and t[2] == {"x": 2, "a": 3, "b": 4}


def test_columns_keep_their_type():
    t = tabular.from_data((numpy.arange(4), [9, 8, 7, 6], ("f", lambda i: -i)))
    a, b, c = t.slice[[3, 0]].fetch()
    assert isinstance(a, numpy.ndarray) and a.tolist() == [3, 0]
    assert b == [6, 9] and c == [-3, 0]


def test_errors():
    with pytest.raises(ValueError, match="different lengths"):
        tabular.from_data(([1, 2], [1, 2, 3]))
    with pytest.raises(ValueError, match="different lengths"):
        tabular.from_data([1, 2], size=3)
    with pytest.raises(ValueError, match="the key 'a' appears in more than one dataset"):
        tabular.from_data((("a", [1]), ("a", [2])))
    with pytest.raises(TypeError, match="must be a list, an array or a function of the index, got int"):
        tabular.from_data(5)
    with pytest.raises(TypeError, match="a key of the dict must be a str or a tuple of str"):
        tabular.from_data({1: [1]})
    with pytest.raises(ValueError, match="size must be a non-negative int"):
        tabular.from_data([1], size=-1)
