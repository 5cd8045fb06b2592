import numpy
import pytest

from chainer.dataset import tabular


def table():
    return tabular.from_data((("x", numpy.arange(5)), ("name", list("abcde"))))


def test_transform_tuple_mode_unpacks_and_returns_tuples():
    t = table().transform(("double", "upper"), lambda x, name: (x * 2, name.upper()))
    assert t.keys == ("double", "upper") and t.mode is tuple and len(t) == 5
    assert t[3] == (6, "D")
    assert t.slice[1:3, "upper"].fetch() == ["B", "C"]


def test_transform_dict_mode_and_dict_output():
    t = table().asdict().transform(("s",), lambda **ex: {"s": f"{ex['name']}{ex['x']}"})
    assert t.mode is dict and t[4] == {"s": "e4"}


def test_transform_mode_follows_what_the_function_returns():
    t = table().transform("pair", lambda x, name: (name, x))
    # One key, and a tuple comes back: a tuple of one value is expected.
    with pytest.raises(ValueError, match="returned a tuple of 2 items for the keys"):
        t[1]
    t = table().transform(("only",), lambda x, name: name * 2)
    assert t.mode is None and t[1] == "bb"


def test_transform_function_must_return_one_kind():
    outputs = iter([{"a": 1}, (2,)])
    t = table().transform(("a",), lambda x, name: next(outputs))
    assert t.get_examples([0], None) == ([1],)
    with pytest.raises(ValueError, match="returned tuple after returning dict"):
        t.get_examples([0], None)


def test_transform_keeps_the_converter_of_its_dataset():
    t = table().with_converter(lambda *columns: "converted").transform(("a",), lambda x, name: (x,))
    assert t.convert(t.fetch()) == "converted"


def test_transform_of_single_column_dataset():
    t = tabular.from_data([1, 2, 3]).transform("neg", lambda v: -v)
    assert t.fetch() == [-1, -2, -3]


def test_transform_runs_on_access():
    calls = []
    t = table().transform(("x",), lambda x, name: calls.append(x) or (x,))
    assert calls == []
    t[2]
    assert calls == [2]


def test_transform_output_is_checked():
    with pytest.raises(ValueError, match=r"returned a tuple of 1 items for the keys \('a', 'b'\)"):
        table().transform(("a", "b"), lambda x, name: (x,))[0]
    with pytest.raises(ValueError, match="returned a dict with keys"):
        table().transform(("a",), lambda x, name: {"b": x})[0]
    with pytest.raises(ValueError, match="keys must be unique"):
        table().transform(("a", "a"), lambda x, name: (x, x))
    with pytest.raises(TypeError, match="keys must be a str or a tuple of str"):
        table().transform((1,), lambda x, name: x)
    with pytest.raises(TypeError, match="must be callable"):
        table().transform("a", 3)


def test_transform_batch_gets_columns():
    sizes = []

    def f(x, name):
        sizes.append(len(x))
        return x + 100, ["!" + n for n in name]

    t = table().transform_batch(("x", "name"), f)
    assert t.slice[[4, 0]].fetch()[1] == ["!e", "!a"]
    assert t[2] == (102, "!c")
    assert sizes == [2, 1]
    with pytest.raises(ValueError, match="returned 1 values of 'x' for 5 examples"):
        table().transform_batch(("x",), lambda x, name: ([1],)).fetch()


def test_transform_batch_single_output():
    t = tabular.from_data({"v": numpy.arange(3)}).transform_batch("sq", lambda v: v * v)
    assert t.mode is None and t.fetch().tolist() == [0, 1, 4]
