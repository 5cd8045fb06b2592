"""Row-wise concatenation and column-wise join of tabular datasets."""

from __future__ import annotations

from typing import Any

import numpy

from chainer.dataset.tabular import _utils, tabular_dataset


def _check_tabular(datasets: tuple[Any, ...], where: str) -> None:
    for d in datasets:
        if not isinstance(d, tabular_dataset.TabularDataset):
            raise TypeError(f"{where}: expected TabularDataset objects, got {type(d).__name__}")


def _merge_columns(pieces: list[Any], positions: list[numpy.ndarray], total: int) -> Any:
    """Put the entries of ``pieces[k]`` at ``positions[k]`` of a column of ``total`` rows."""
    if pieces and all(isinstance(p, numpy.ndarray) for p in pieces):
        stacked = numpy.concatenate(pieces)
        out = numpy.empty_like(stacked)
        out[numpy.concatenate(positions)] = stacked
        return out
    merged: list[Any] = [None] * total
    for piece, where in zip(pieces, positions):
        for position, value in zip(where.tolist(), piece):
            merged[position] = value
    return merged


def _concat_columns(pieces: list[Any]) -> Any:
    if all(isinstance(p, numpy.ndarray) for p in pieces):
        return numpy.concatenate(pieces)
    merged: list[Any] = []
    for piece in pieces:
        merged.extend(piece)
    return merged


class Concat(tabular_dataset.TabularDataset):
    """Datasets with the same keys, one after the other."""

    def __init__(self, *datasets: tabular_dataset.TabularDataset) -> None:
        _check_tabular(datasets, "TabularDataset.concat")
        keys = datasets[0].keys
        for d in datasets[1:]:
            if d.keys != keys:
                raise ValueError(f"TabularDataset.concat: all datasets must have the keys {keys}, got {d.keys}")
        self._datasets = datasets
        self._offsets = numpy.cumsum([0] + [len(d) for d in datasets])

    def __len__(self) -> int:
        return int(self._offsets[-1])

    @property
    def keys(self) -> tuple[str, ...]:
        return self._datasets[0].keys

    @property
    def mode(self) -> Any:
        return self._datasets[0].mode

    def get_examples(self, indices: Any, key_indices: tuple[int, ...] | None) -> tuple[Any, ...]:
        n_keys = len(self.keys) if key_indices is None else len(key_indices)
        rows = _utils.resolve_rows(indices, len(self), "concat.get_examples")
        if rows is None or (isinstance(rows, range) and rows.step == 1):
            # Contiguous rows: a slice of each dataset, already in order.
            start, stop = (0, len(self)) if rows is None else (rows.start, rows.stop)
            if start >= stop:
                return tuple(self._datasets[0].get_examples(slice(0, 0), key_indices))
            pieces: list[list[Any]] = [[] for _ in range(n_keys)]
            for d, offset in zip(self._datasets, self._offsets[:-1].tolist()):
                lo, hi = max(start - offset, 0), min(stop - offset, len(d))
                if lo < hi:
                    for k, column in enumerate(d.get_examples(slice(lo, hi), key_indices)):
                        pieces[k].append(column)
            return tuple(_concat_columns(p) for p in pieces)
        wanted = _utils.as_array(rows, len(self))
        owner = numpy.searchsorted(self._offsets, wanted, side="right") - 1
        pieces = [[] for _ in range(n_keys)]
        positions = []
        for j, d in enumerate(self._datasets):
            where = numpy.flatnonzero(owner == j)
            if len(where) == 0:
                continue
            local = wanted[where] - self._offsets[j]
            for k, column in enumerate(d.get_examples(local, key_indices)):
                pieces[k].append(column)
            positions.append(where)
        return tuple(_merge_columns(p, positions, len(wanted)) for p in pieces)

    def convert(self, data: Any) -> Any:
        return self._datasets[0].convert(data)


class Join(tabular_dataset.TabularDataset):
    """Datasets with the same length, columns side by side."""

    def __init__(self, *datasets: tabular_dataset.TabularDataset) -> None:
        _check_tabular(datasets, "TabularDataset.join")
        length = len(datasets[0])
        for d in datasets[1:]:
            if len(d) != length:
                raise ValueError(f"TabularDataset.join: all datasets must have {length} rows, got {len(d)}")
        keys: list[str] = []
        self._owners: list[tuple[int, int]] = []
        for j, d in enumerate(datasets):
            for k, key in enumerate(d.keys):
                if key in keys:
                    raise ValueError(f"TabularDataset.join: the key {key!r} appears in more than one dataset")
                keys.append(key)
                self._owners.append((j, k))
        self._datasets = datasets
        self._keys = tuple(keys)
        self._length = length

    def __len__(self) -> int:
        return self._length

    @property
    def keys(self) -> tuple[str, ...]:
        return self._keys

    @property
    def mode(self) -> Any:
        mode = self._datasets[0].mode
        return tuple if mode is None else mode

    def get_examples(self, indices: Any, key_indices: tuple[int, ...] | None) -> tuple[Any, ...]:
        if key_indices is None:
            key_indices = tuple(range(len(self._keys)))
        wanted: dict[int, list[int]] = {}
        for key_index in key_indices:
            j, k = self._owners[key_index]
            wanted.setdefault(j, []).append(k)
        columns: dict[tuple[int, int], Any] = {}
        for j, local_keys in wanted.items():
            unique = tuple(dict.fromkeys(local_keys))
            for k, column in zip(unique, self._datasets[j].get_examples(indices, unique)):
                columns[j, k] = column
        return tuple(columns[self._owners[key_index]] for key_index in key_indices)

    def convert(self, data: Any) -> Any:
        return self._datasets[0].convert(data)
