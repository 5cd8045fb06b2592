"""``DictDataset``: examples are dicts built from several equal-length datasets."""

from __future__ import annotations

from typing import Any

from chainer.dataset import dataset_mixin


class DictDataset:
    """Dataset of a dictionary of datasets.

    Example ``i`` is ``{key: dataset[i] for key, dataset in datasets.items()}``. Indexing
    with a slice, a list or an index array returns a list of such dicts.

    Args:
        datasets: Keyword arguments; every value is a dataset of the same length.

    Example:
        >>> from chainer.datasets import DictDataset
        >>> ds = DictDataset(x=np.arange(3), t=[7, 8, 9])
        >>> ds[1]
        {'x': np.int64(1), 't': 8}
    """

    def __init__(self, **datasets: Any) -> None:
        if not datasets:
            raise ValueError("DictDataset: no datasets are given")
        lengths = {key: len(dataset) for key, dataset in datasets.items()}
        if len(set(lengths.values())) != 1:
            raise ValueError(f"DictDataset: the datasets must have the same length, got {lengths}")
        self._datasets = datasets
        self._length = next(iter(lengths.values()))

    def __getitem__(self, index: Any) -> Any:
        batches = {key: dataset_mixin.take(dataset, index) for key, dataset in self._datasets.items()}
        if dataset_mixin.is_batch_index(index):
            n = len(next(iter(batches.values())))
            return [{key: batch[i] for key, batch in batches.items()} for i in range(n)]
        return batches

    def __len__(self) -> int:
        return self._length
