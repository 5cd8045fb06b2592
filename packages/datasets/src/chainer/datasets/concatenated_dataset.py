"""``ConcatenatedDataset``: several datasets one after the other."""

from __future__ import annotations

import bisect
import itertools
from typing import Any

from chainer.dataset import dataset_mixin


class ConcatenatedDataset(dataset_mixin.DatasetMixin):
    """Dataset which concatenates some base datasets.

    Example ``i`` is taken from the first dataset while ``i < len(datasets[0])``, then
    from the second, and so on.

    Args:
        datasets: The base datasets; none gives an empty dataset.

    Example:
        >>> from chainer.datasets import ConcatenatedDataset
        >>> ds = ConcatenatedDataset([1, 2], [3, 4, 5])
        >>> len(ds), ds[3], ds[-1]
        (5, 4, 5)
    """

    def __init__(self, *datasets: Any) -> None:
        self._datasets = datasets
        self._ends = list(itertools.accumulate(len(d) for d in datasets))

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    def get_example(self, i: int) -> Any:
        i = dataset_mixin.normalize_index(self, i, len(self))
        j = bisect.bisect_right(self._ends, i)
        start = self._ends[j - 1] if j else 0
        return self._datasets[j][i - start]
