"""``TupleDataset``: examples are tuples built from several equal-length datasets."""

from __future__ import annotations

from typing import Any

from chainer.dataset import dataset_mixin


class TupleDataset:
    """Dataset of tuples from multiple equal-length datasets.

    Example ``i`` is ``(datasets[0][i], datasets[1][i], ...)``. Indexing with a slice, a
    list or an index array returns a list of such tuples.

    Args:
        datasets: Datasets of the same length (arrays, lists or any dataset).

    Example:
        >>> from chainer.datasets import TupleDataset
        >>> x, t = np.arange(6).reshape(3, 2), np.array([0, 1, 0])
        >>> ds = TupleDataset(x, t)
        >>> ds[2]
        (array([4, 5]), np.int64(0))
    """

    def __init__(self, *datasets: Any) -> None:
        if not datasets:
            raise ValueError("TupleDataset: no datasets are given")
        length = len(datasets[0])
        for i, dataset in enumerate(datasets):
            if len(dataset) != length:
                raise ValueError(
                    f"TupleDataset: the datasets must have the same length; dataset 0 has {length} examples "
                    f"but dataset {i} has {len(dataset)}"
                )
        self._datasets = datasets
        self._length = length

    def __getitem__(self, index: Any) -> Any:
        batches = [dataset_mixin.take(dataset, index) for dataset in self._datasets]
        if dataset_mixin.is_batch_index(index):
            n = len(batches[0])
            return [tuple(batch[i] for batch in batches) for i in range(n)]
        return tuple(batches)

    def __len__(self) -> int:
        return self._length
