"""TabularDataset: reading (get_example, batches, fetch, convert) and the views
(slice, astuple, asdict, with_converter)."""

import numpy
import pytest

from chainer.dataset import TabularDataset, tabular


class Table(TabularDataset):
    """A hand-written subclass: columns 'a' (array), 'b' (list), 'c' (array); it records
    the get_examples calls it receives."""

    def __init__(self, n=6, mode=tuple):
        self.a = numpy.arange(n) * 10
        self.b = [f"b{i}" for i in range(n)]
        self.c = numpy.arange(n * 2, dtype=numpy.float32).reshape(n, 2)
        self._mode = mode
        self.calls = []

    def __len__(self):
        return len(self.a)

    @property
    def keys(self):
        return ("a", "b", "c")

    @property
    def mode(self):
        return self._mode

    def get_examples(self, indices, key_indices):
        self.calls.append((indices, key_indices))
        columns = (self.a, self.b, self.c)
        if key_indices is None:
            key_indices = (0, 1, 2)
        out = []
        for k in key_indices:
            column = columns[k]
            if indices is None:
                out.append(column)
            elif isinstance(indices, slice):
                out.append(column[indices])
            elif isinstance(column, list):
                out.append([column[i] for i in indices])
            else:
                out.append(column[indices])
        return tuple(out)


def expected_row(t, i, keys=("a", "b", "c")):
    values = {"a": t.a[i], "b": t.b[i], "c": t.c[i]}
    return [values[k] for k in keys]


def assert_example_equal(actual, expected_values, mode, keys=("a", "b", "c")):
    if mode is tuple:
        assert isinstance(actual, tuple) and len(actual) == len(expected_values)
        pairs = zip(actual, expected_values)
    elif mode is dict:
        assert isinstance(actual, dict) and list(actual) == list(keys)
        pairs = zip(actual.values(), expected_values)
    else:
        pairs = [(actual, expected_values[0])]
    for a, e in pairs:
        numpy.testing.assert_array_equal(a, e)


@pytest.mark.parametrize("mode", [tuple, dict])
def test_get_example_and_len(mode):
    t = Table(mode=mode)
    assert len(t) == 6
    for i in (0, 3, -1):
        assert_example_equal(t[i], expected_row(t, i), mode)
    with pytest.raises(IndexError, match="index 6 is out of range"):
        t[6]
    with pytest.raises(TypeError, match="must be an integer"):
        t[1.5]


@pytest.mark.parametrize(
    "index", [slice(1, 5, 2), slice(None, None, -1), [4, 0, 4], numpy.array([5, 2]), [True, False] * 3, slice(9, 20)]
)
def test_batch_indexing_uses_one_get_examples_call(index):
    t = Table()
    positions = numpy.arange(6)[index]
    examples = t[index]
    assert len(examples) == len(positions)
    for example, i in zip(examples, positions):
        assert_example_equal(example, expected_row(t, i), tuple)
    assert len(t.calls) == 1


def test_iteration_visits_every_row():
    t = Table(n=3)
    assert [e[1] for e in t] == ["b0", "b1", "b2"]


def test_fetch_returns_columns_in_the_mode():
    t = Table()
    a, b, c = t.fetch()
    assert b == t.b
    numpy.testing.assert_array_equal(a, t.a)
    d = t.asdict().fetch()
    assert list(d) == ["a", "b", "c"] and d["b"] == t.b
    single = t.slice[:, "b"].fetch()
    assert single == t.b


def test_default_convert_makes_arrays():
    t = Table()
    a, b, c = t.convert(t.fetch())
    assert isinstance(b, numpy.ndarray) and b.tolist() == t.b
    assert a is t.a
    d = t.convert({"x": [1, 2]})
    numpy.testing.assert_array_equal(d["x"], [1, 2])
    numpy.testing.assert_array_equal(t.convert([3, 4]), [3, 4])


@pytest.mark.parametrize("mode", [tuple, dict])
@pytest.mark.parametrize(
    "rows", [slice(None), slice(1, 5), slice(None, None, -2), [5, 1, 1], numpy.array([0, 3]), [False, True] * 3]
)
@pytest.mark.parametrize("keys", [None, ("c", "a"), (2, 0), "b", 1, ("b",)])
def test_slice_view(mode, rows, keys):
    t = Table(mode=mode)
    view = t.slice[rows] if keys is None else t.slice[rows, keys]
    positions = numpy.arange(6)[rows]
    names = {None: ("a", "b", "c"), ("c", "a"): ("c", "a"), (2, 0): ("c", "a"), "b": ("b",), 1: ("b",)}.get(
        keys, ("b",)
    )
    assert view.keys == names
    single = isinstance(keys, (str, int))
    assert view.mode is (None if single else mode)
    assert len(view) == len(positions)
    for j, i in enumerate(positions):
        assert_example_equal(view[j], expected_row(t, i, names), view.mode, names)


def test_slice_of_slice_composes():
    t = Table(n=10, mode=dict)
    view = t.slice[::-1].slice[2:8:2].slice[[2, 0]]
    assert [e["a"] for e in view] == [30, 70]
    view = t.slice[1:9].slice[::-3]
    assert [e["a"] for e in view] == [80, 50, 20]
    view = t.slice[[9, 1, 5]].slice[1:]
    assert [e["b"] for e in view] == ["b1", "b5"]
    assert t.slice[:, ("c", "b")].slice[:, "b"].fetch() == t.b


@pytest.mark.parametrize(
    "view_rows, asked, expected",
    [
        # A slice of a slice is one slice of the base; a negative step that runs past
        # row 0 ends at None (an int stop -1 would mean the last row).
        (slice(None), None, slice(0, 10, 1)),
        (slice(3, None, -2), slice(1, None, -1), slice(1, 5, 2)),
        (slice(None, None, -1), slice(2, 8, 3), slice(7, 1, -3)),
        (slice(None, None, -1), slice(8, None), slice(1, None, -1)),
        (slice(5, 5), None, slice(0, 0, 1)),
        # Lists stay lists, in the base's numbering.
        (slice(None, None, -1), [0, 2], [9, 7]),
        ([4, -1, 2], slice(None, None, -1), [2, 9, 4]),
        ([4, 9, 2], [2, 2], [2, 2]),
        ([False, True] * 5, None, [1, 3, 5, 7, 9]),
        ([True, 3, numpy.int32(9)], None, [1, 3, 9]),
    ],
)
def test_slice_hands_the_base_one_request(view_rows, asked, expected):
    t = Table(n=10)
    view = t.slice[view_rows]
    columns = view.get_examples(asked, (0,))
    assert t.calls == [(expected, (0,))]
    numpy.testing.assert_array_equal(columns[0], t.a[expected])


def test_slice_keys_reach_the_base_as_positions():
    t = Table()
    t.slice[:, ("c", -3)].get_examples(None, (1,))
    t.slice[:, ()].get_examples(None, None)
    t.slice[[1]].get_examples(None, None)
    assert [keys for _, keys in t.calls] == [(0,), (), None]
    assert t.slice[:, ()].keys == () and t.slice[:, ()].mode is tuple


def test_slice_errors():
    t = Table()
    with pytest.raises(IndexError, match="row 6 is out of range"):
        t.slice[[0, 6]]
    with pytest.raises(ValueError, match=r"a boolean mask must have one entry per row \(6\), got 2"):
        t.slice[[True, False]]
    with pytest.raises(KeyError, match="no key 'z'"):
        t.slice[:, "z"]
    with pytest.raises(IndexError, match="key position 3 is out of range"):
        t.slice[:, 3]
    with pytest.raises(ValueError, match="more than once"):
        t.slice[:, ("a", "a")]
    with pytest.raises(IndexError, match=r"takes \[rows\] or \[rows, keys\]"):
        t.slice[1, 2, 3]
    with pytest.raises(TypeError, match="rows must be a slice, a list of ints or a list of bools"):
        t.slice["a"]


def test_astuple_asdict():
    t = Table(mode=dict)
    assert t.astuple().mode is tuple and t.astuple()[1][1] == "b1"
    assert t.astuple().asdict()[2]["b"] == "b2"
    single = t.slice[:, "a"]
    assert single.mode is None and single.astuple()[3] == (30,)
    assert single.asdict()[3] == {"a": 30}


def test_with_converter():
    t = Table()
    view = t.with_converter(lambda a, b, c: (a.sum(), len(b)))
    assert view.convert(view.fetch()) == (150, 6)
    assert view[0][1] == "b0"
    d = t.asdict().with_converter(lambda **cols: sorted(cols))
    assert d.convert(d.fetch()) == ["a", "b", "c"]
    s = t.slice[:, "b"].with_converter(lambda col: "".join(col))
    assert s.convert(s.fetch()) == "b0b1b2b3b4b5"
    # Views keep the converter of the dataset they come from.
    assert view.slice[:2].convert(view.slice[:2].fetch()) == (10, 2)
    with pytest.raises(TypeError, match="converter must be callable"):
        t.with_converter(None)


def test_abstract_members():
    class Empty(TabularDataset):
        pass

    e = Empty()
    for action in (lambda: len(e), lambda: e.keys, lambda: e.mode, lambda: e.get_examples(None, None)):
        with pytest.raises(NotImplementedError):
            action()


def test_repr():
    assert repr(tabular.from_data(("v", [1, 2]))) == "<_List len=2 keys=('v',) mode=None>"
