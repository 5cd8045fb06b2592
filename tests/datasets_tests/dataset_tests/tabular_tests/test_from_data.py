import numpy
import pytest

from chainer.dataset import tabular


def test_single_unnamed_column():
    t = tabular.from_data(numpy.arange(4) * 2)
    assert t.keys == ("_0",) and t.mode is None and len(t) == 4
    assert t[3] == 6 and t[1:3] == [2, 4]


def test_single_named_column_and_list():
    t = tabular.from_data(("x", ["p", "q"]))
    assert t.keys == ("x",) and t.mode is None
    assert t[1] == "q"


def test_tuple_of_columns_with_and_without_names():
    square = lambda i: i * i
    t = tabular.from_data((numpy.arange(3), ("sq", square), [7, 8, 9]))
    assert t.keys == ("_0", "sq", "_2") and t.mode is tuple
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
    with pytest.raises(ValueError, match="must be given as size="):
        tabular.from_data(lambda i: i)


def test_errors():
    with pytest.raises(ValueError, match="different lengths"):
        tabular.from_data(([1, 2], [1, 2, 3]))
    with pytest.raises(ValueError, match="different lengths"):
        tabular.from_data([1, 2], size=3)
    with pytest.raises(ValueError, match="not unique"):
        tabular.from_data((("a", [1]), ("a", [2])))
    with pytest.raises(TypeError, match="the column '_0' must be a list, an array or a callable"):
        tabular.from_data(5)
    with pytest.raises(TypeError, match="keys of a dict must be str"):
        tabular.from_data({1: [1]})
    with pytest.raises(ValueError, match="size must be a non-negative int"):
        tabular.from_data([1], size=-1)
