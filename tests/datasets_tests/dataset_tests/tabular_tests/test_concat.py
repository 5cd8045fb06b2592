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


class Recorder(tabular.DelegateDataset):
    """A dataset that logs the rows it is asked for."""

    def __init__(self, number, dataset, log):
        super().__init__(dataset)
        self.number, self.log = number, log

    def get_examples(self, indices, key_indices):
        self.log.append((self.number, indices))
        return super().get_examples(indices, key_indices)


def recorded_pair():
    log = []
    return Recorder(0, make(0, 10), log).concat(Recorder(1, make(10, 5), log)), log


def test_concat_asks_each_dataset_for_its_own_rows_only():
    joined, log = recorded_pair()
    # Rows of one dataset only: its answer comes back as it is (an array here).
    x = joined.slice[[3, 1, 4]].fetch()["x"]
    assert isinstance(x, numpy.ndarray) and x.tolist() == [3, 1, 4]
    assert log == [(0, [3, 1, 4])]
    # Rows of both: each dataset asked once, in its own numbering; the answer is a list.
    log.clear()
    x = joined.slice[[3, 12, 1, 14]].fetch()["x"]
    assert x == [3, 12, 1, 14] and log == [(0, [3, 1]), (1, [2, 4])]
    # No rows: nobody is asked.
    log.clear()
    assert joined.slice[[]].fetch() == {"x": [], "y": []}
    assert log == []


@pytest.mark.parametrize(
    "rows, expected",
    [
        (slice(13, 6, -2), [(1, slice(3, None, -2)), (0, slice(9, 6, -2))]),
        (slice(9, None, -2), [(0, slice(9, None, -2))]),
        (slice(2, 14, 3), [(0, slice(2, 10, 3)), (1, slice(1, 4, 3))]),
        (slice(11, 14), [(1, slice(1, 4, 1))]),
        (None, [(0, None), (1, None)]),
    ],
)
def test_concat_passes_slices_on_as_slices(rows, expected):
    joined, log = recorded_pair()
    x = joined.get_examples(rows, None)[0]
    numpy.testing.assert_array_equal(x, numpy.arange(15) if rows is None else numpy.arange(15)[rows])
    assert log == expected


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
