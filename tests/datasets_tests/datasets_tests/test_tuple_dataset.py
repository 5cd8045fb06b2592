import numpy
import pytest

from chainer.datasets import TupleDataset


def make():
    x = numpy.arange(12, dtype=numpy.float32).reshape(4, 3)
    t = numpy.array([3, 1, 4, 1], numpy.int32)
    names = ["a", "b", "c", "d"]
    return TupleDataset(x, t, names), x, t, names


def test_length_and_int_index():
    ds, x, t, names = make()
    assert len(ds) == 4
    example = ds[2]
    assert isinstance(example, tuple) and len(example) == 3
    numpy.testing.assert_array_equal(example[0], x[2])
    assert example[1] == 4 and example[2] == "c"
    assert ds[-1][2] == "d"


@pytest.mark.parametrize("index", [slice(1, 3), slice(None, None, -2), [3, 0, 3], numpy.array([1, 2])])
def test_batch_indices(index):
    ds, x, t, names = make()
    positions = numpy.arange(4)[index]
    batch = ds[index]
    assert isinstance(batch, list) and len(batch) == len(positions)
    for (xi, ti, ni), i in zip(batch, positions):
        numpy.testing.assert_array_equal(xi, x[i])
        assert ti == t[i] and ni == names[i]


def test_errors():
    with pytest.raises(ValueError, match="no datasets are given"):
        TupleDataset()
    with pytest.raises(ValueError, match="dataset 0 has 2 examples but dataset 1 has 3"):
        TupleDataset([1, 2], [1, 2, 3])
    ds, *_ = make()
    with pytest.raises(IndexError):
        ds[4]
