import numpy
import pytest

from chainer.datasets import DictDataset


def test_length_int_and_batch_indices():
    x = numpy.arange(8).reshape(4, 2)
    ds = DictDataset(x=x, t=[5, 6, 7, 8])
    assert len(ds) == 4
    example = ds[1]
    assert set(example) == {"x", "t"} and example["t"] == 6
    numpy.testing.assert_array_equal(example["x"], [2, 3])
    for index in (slice(0, 4, 2), [3, 1], numpy.array([0])):
        positions = numpy.arange(4)[index]
        batch = ds[index]
        assert [e["t"] for e in batch] == [5 + i for i in positions]
        for e, i in zip(batch, positions):
            numpy.testing.assert_array_equal(e["x"], x[i])


def test_errors():
    with pytest.raises(ValueError, match="no datasets are given"):
        DictDataset()
    with pytest.raises(ValueError, match=r"must have the same length, got \{'a': 1, 'b': 2\}"):
        DictDataset(a=[1], b=[1, 2])
