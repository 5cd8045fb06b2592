import pytest

from chainer.datasets import TransformDataset


def test_transform_on_access():
    calls = []

    def double(x):
        calls.append(x)
        return x * 2

    ds = TransformDataset([1, 2, 3], double)
    assert calls == []
    assert len(ds) == 3
    assert ds[1] == 4 and ds[-1] == 6
    assert ds[::2] == [2, 6]
    assert ds[[2, 0]] == [6, 2]
    assert calls == [2, 3, 1, 3, 3, 1]


def test_transform_must_be_callable():
    with pytest.raises(TypeError, match="transform must be callable"):
        TransformDataset([1], "upper")
