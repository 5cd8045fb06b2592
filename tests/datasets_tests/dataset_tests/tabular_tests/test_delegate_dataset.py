import numpy
import pytest

from chainer.dataset import tabular


class Squares(tabular.DelegateDataset):
    def __init__(self, n):
        x = numpy.arange(n)
        super().__init__(tabular.from_data((("x", x), ("y", x * x))))

    def total(self):
        return int(self.slice[:, "y"].fetch().sum())


def test_delegation():
    s = Squares(4)
    assert len(s) == 4 and s.keys == ("x", "y") and s.mode is tuple
    assert s[3] == (3, 9)
    assert s.total() == 14
    assert s.asdict()[2] == {"x": 2, "y": 4}
    assert s.get_examples([1], (1,))[0].tolist() == [1]


def test_needs_a_tabular_dataset():
    with pytest.raises(TypeError, match="expected a TabularDataset, got list"):
        tabular.DelegateDataset([1, 2])
