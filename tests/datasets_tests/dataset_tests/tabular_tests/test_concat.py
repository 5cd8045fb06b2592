import numpy
import pytest

from chainer.dataset import tabular


def make(start, n, as_list=False):
    x = numpy.arange(start, start + n)
    y = [f"y{i}" for i in range(start, start + n)]
    return tabular.from_data({"x": list(x) if as_list else x, "y": y})


@pytest.mark.parametrize(
    "rows", [slice(None), slice(1, 6), slice(3, 3), slice(None, None, -1), slice(0, 8, 3), [7, 0, 4, 4, 2], [True] * 8]
)
def test_concat_rows(rows):
    a, b, c = make(0, 3), make(3, 2, as_list=True), make(5, 3)
    joined = a.concat(b, c)
    assert len(joined) == 8 and joined.keys == ("x", "y") and joined.mode is dict
    positions = numpy.arange(8)[rows]
    view = joined.slice[rows]
    assert [e["x"] for e in view] == positions.tolist()
    assert view.fetch()["y"] == [f"y{i}" for i in positions]


def test_concat_keeps_arrays_when_all_parts_are_arrays():
    joined = make(0, 2).concat(make(2, 2))
    x = joined.fetch()["x"]
    assert isinstance(x, numpy.ndarray) and x.tolist() == [0, 1, 2, 3]
    x = joined.slice[[3, 0]].fetch()["x"]
    assert isinstance(x, numpy.ndarray) and x.tolist() == [3, 0]


def test_concat_needs_same_keys():
    with pytest.raises(ValueError, match="must have the keys"):
        make(0, 2).concat(tabular.from_data({"x": [1]}))
    with pytest.raises(TypeError, match="expected TabularDataset"):
        make(0, 2).concat([1, 2])


def test_concat_uses_first_converter():
    a = make(0, 2).with_converter(lambda x, y: ("first", list(x)))
    joined = a.concat(make(2, 1))
    assert joined.convert(joined.fetch()) == ("first", [0, 1, 2])


def test_join_columns():
    a = tabular.from_data((("a", numpy.arange(4)), ("b", list("pqrs"))))
    b = tabular.from_data(("c", numpy.arange(4) * 10))
    j = a.join(b)
    assert j.keys == ("a", "b", "c") and j.mode is tuple and len(j) == 4
    assert j[2] == (2, "r", 20)
    assert j.slice[1:3, ("c", "a")].fetch()[0].tolist() == [10, 20]
    assert j.asdict()[3] == {"a": 3, "b": "s", "c": 30}
    single_first = b.join(a)
    assert single_first.mode is tuple and single_first[0] == (0, 0, "p")


def test_join_errors():
    a = tabular.from_data(("a", [1, 2]))
    with pytest.raises(ValueError, match="must have 2 rows"):
        a.join(tabular.from_data(("b", [1])))
    with pytest.raises(ValueError, match="the key 'a' appears in more than one dataset"):
        a.join(tabular.from_data(("a", [1, 2])))
