import numpy
import pytest

from chainer.dataset import DatasetMixin


class Squares(DatasetMixin):
    def __init__(self, n):
        self.n = n
        self.calls = []

    def __len__(self):
        return self.n

    def get_example(self, i):
        self.calls.append(i)
        return i * i


def test_int_index_goes_to_get_example_unchanged():
    ds = Squares(5)
    assert ds[3] == 9
    assert ds[-2] == 4  # passed through: the subclass decides what a negative index means
    assert ds.calls == [3, -2]


@pytest.mark.parametrize(
    "index, expected",
    [
        (slice(1, 4), [1, 4, 9]),
        (slice(None, None, 2), [0, 4, 16]),
        (slice(None, None, -1), [16, 9, 4, 1, 0]),
        (slice(-2, None), [9, 16]),
        (slice(10, 20), []),
        ([4, 0, 4], [16, 0, 16]),
        (numpy.array([2, 1]), [4, 1]),
    ],
)
def test_batch_indices_return_lists(index, expected):
    assert Squares(5)[index] == expected


def test_len_and_get_example_are_abstract():
    ds = DatasetMixin()
    with pytest.raises(NotImplementedError, match="DatasetMixin must implement __len__"):
        len(ds)
    with pytest.raises(NotImplementedError, match="get_example"):
        ds[0]


def test_slice_needs_len_but_int_does_not():
    class NoLen(DatasetMixin):
        def get_example(self, i):
            return i + 1

    assert NoLen()[41] == 42
    with pytest.raises(NotImplementedError, match="__len__"):
        NoLen()[:2]
