import numpy
import pytest

from chainer.datasets import ConcatenatedDataset


def test_indexing_across_datasets():
    ds = ConcatenatedDataset([0, 1], numpy.array([2, 3, 4]), [], ["five"])
    assert len(ds) == 6
    assert [ds[i] for i in range(6)] == [0, 1, 2, 3, 4, "five"]
    assert ds[-1] == "five" and ds[-4] == 2
    assert ds[1:5] == [1, 2, 3, 4]
    assert ds[[5, 0]] == ["five", 0]
    with pytest.raises(IndexError, match="index 6 is out of range for a dataset of length 6"):
        ds[6]
    with pytest.raises(IndexError):
        ds[-7]


def test_no_datasets_make_an_empty_one():
    # As in Chainer 7: nothing to concatenate is an empty dataset, not an error.
    empty = ConcatenatedDataset()
    assert len(empty) == 0 and empty[0:3] == []
    with pytest.raises(IndexError, match="out of range"):
        empty[0]
