"""``concat(*datasets)``: tabular datasets with the same keys, one after the other."""

from __future__ import annotations

import bisect
from typing import Any

from chainer.dataset.tabular import tabular_dataset


def _check_tabular(datasets: tuple[Any, ...], where: str) -> None:
    for dataset in datasets:
        if not isinstance(dataset, tabular_dataset.TabularDataset):
            raise TypeError(f"{where}: expected TabularDataset objects, got {type(dataset).__name__}")


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _local_slice(rows: range, offset: int, length: int) -> slice | None:
    """The part of ``rows`` (a range over the whole concatenation) inside the dataset at
    ``offset`` of ``length`` rows, as a slice of that dataset; ``None`` if no row is."""
    step = rows.step
    if step > 0:
        first = max(0, _ceil_div(offset - rows.start, step))
        end = min(len(rows), max(0, _ceil_div(offset + length - rows.start, step)))
    else:
        first = max(0, _ceil_div(rows.start - (offset + length - 1), -step))
        end = min(len(rows), max(0, _ceil_div(rows.start - offset + 1, -step)))
    if first >= end:
        return None
    start = rows[first] - offset
    stop = rows.stop - offset
    if step > 0:
        return slice(start, min(stop, length), step)
    # Past the first row of this dataset: "up to the beginning", which no int stop says.
    return slice(start, stop if stop >= 0 else None, step)


class _Concat(tabular_dataset.TabularDataset):
    """The dataset :meth:`TabularDataset.concat` returns.

    Each dataset is asked once, for its own rows only (as a slice when the rows were a
    slice); a dataset with no row in the request is not asked. The rows of several
    datasets are merged into lists.
    """

    def __init__(self, *datasets: tabular_dataset.TabularDataset) -> None:
        _check_tabular(datasets, "TabularDataset.concat")
        keys = datasets[0].keys
        for dataset in datasets[1:]:
            if dataset.keys != keys:
                raise ValueError(
                    f"TabularDataset.concat: all datasets must have the keys {keys} in this order, got {dataset.keys}"
                )
        self._datasets = datasets
        self._offsets = [0]
        for dataset in datasets:
            self._offsets.append(self._offsets[-1] + len(dataset))

    def __len__(self) -> int:
        return self._offsets[-1]

    @property
    def keys(self) -> tuple[str, ...]:
        return self._datasets[0].keys

    @property
    def mode(self) -> Any:
        return self._datasets[0].mode

    def get_examples(self, indices: Any, key_indices: tuple[int, ...] | None) -> tuple[Any, ...]:
        n_columns = len(self.keys) if key_indices is None else len(key_indices)
        if indices is None:
            parts = [dataset.get_examples(None, key_indices) for dataset in self._datasets]
        elif isinstance(indices, slice):
            rows = range(len(self))[indices]
            order = range(len(self._datasets)) if rows.step > 0 else reversed(range(len(self._datasets)))
            parts = []
            for j in order:
                local = _local_slice(rows, self._offsets[j], len(self._datasets[j]))
                if local is not None:
                    parts.append(self._datasets[j].get_examples(local, key_indices))
        else:
            return self._take(list(indices), key_indices, n_columns)
        if len(parts) == 1:
            return tuple(parts[0])
        columns: list[list[Any]] = [[] for _ in range(n_columns)]
        for part in parts:
            for column, values in zip(columns, part):
                column.extend(values)
        return tuple(columns)

    def _take(self, indices: list[int], key_indices: tuple[int, ...] | None, n_columns: int) -> tuple[Any, ...]:
        # Local rows per dataset, and where each lands in the answer.
        local: dict[int, list[int]] = {}
        positions: dict[int, list[int]] = {}
        for position, index in enumerate(indices):
            if index < 0:
                index += len(self)
            j = bisect.bisect_right(self._offsets, index) - 1
            if not 0 <= index < len(self) or j >= len(self._datasets):
                raise IndexError(f"TabularDataset.concat: row {index} is out of range for {len(self)} rows")
            local.setdefault(j, []).append(index - self._offsets[j])
            positions.setdefault(j, []).append(position)
        parts = {j: self._datasets[j].get_examples(rows, key_indices) for j, rows in local.items()}
        if len(parts) == 1:
            return tuple(next(iter(parts.values())))
        columns: list[list[Any]] = [[None] * len(indices) for _ in range(n_columns)]
        for j, part in parts.items():
            for column, values in zip(columns, part):
                for position, value in zip(positions[j], values):
                    column[position] = value
        return tuple(columns)

    def convert(self, data: Any) -> Any:
        return self._datasets[0].convert(data)
