"""``join(*datasets)``: tabular datasets with the same length, columns side by side."""

from __future__ import annotations

from typing import Any

from chainer.dataset.tabular import _concat, tabular_dataset


class _Join(tabular_dataset.TabularDataset):
    """The dataset :meth:`TabularDataset.join` returns.

    Each dataset is asked only for the columns requested of it, once; one that owns
    none of them is not asked.
    """

    def __init__(self, *datasets: tabular_dataset.TabularDataset) -> None:
        _concat._check_tabular(datasets, "TabularDataset.join")
        length = len(datasets[0])
        keys: list[str] = []
        # For each key of the join: which dataset holds it, at which position.
        self._owners: list[tuple[int, int]] = []
        for j, dataset in enumerate(datasets):
            if len(dataset) != length:
                raise ValueError(f"TabularDataset.join: all datasets must have {length} rows, got {len(dataset)}")
            for k, key in enumerate(dataset.keys):
                if key in keys:
                    raise ValueError(f"TabularDataset.join: the key {key!r} appears in more than one dataset")
                keys.append(key)
                self._owners.append((j, k))
        self._datasets = datasets
        self._keys = tuple(keys)

    def __len__(self) -> int:
        return len(self._datasets[0])

    @property
    def keys(self) -> tuple[str, ...]:
        return self._keys

    @property
    def mode(self) -> Any:
        for dataset in self._datasets:
            if dataset.mode is not None:
                return dataset.mode
        return tuple

    def get_examples(self, indices: Any, key_indices: tuple[int, ...] | None) -> tuple[Any, ...]:
        if key_indices is None:
            columns: list[Any] = []
            for dataset in self._datasets:
                columns.extend(dataset.get_examples(indices, None))
            return tuple(columns)
        wanted: dict[int, list[int]] = {}
        for key_index in key_indices:
            j, k = self._owners[key_index]
            if k not in wanted.setdefault(j, []):
                wanted[j].append(k)
        found: dict[tuple[int, int], Any] = {}
        for j, local_keys in wanted.items():
            for k, column in zip(local_keys, self._datasets[j].get_examples(indices, tuple(local_keys))):
                found[j, k] = column
        return tuple(found[self._owners[key_index]] for key_index in key_indices)

    def convert(self, data: Any) -> Any:
        return self._datasets[0].convert(data)
