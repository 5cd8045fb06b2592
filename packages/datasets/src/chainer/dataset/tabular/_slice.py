"""``dataset.slice[rows, keys]``: a view of some rows and columns, without copying.

Rows reach ``get_examples`` as ``None`` (all), a slice or a list of non-negative ints;
a view composes its own selection with the one it is asked for, so a chain of views
makes one ``get_examples`` call on the dataset at the bottom, with a slice wherever
every selection on the way was a slice.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy

from chainer.dataset.tabular import tabular_dataset

Indices = None | slice | list[int]


def _range_as_slice(rows: range) -> slice:
    if len(rows) == 0:
        return slice(0, 0, 1)
    # A negative stop would count from the end; it only happens when a negative step
    # runs past the first row.
    return slice(rows.start, rows.stop if rows.stop >= 0 else None, rows.step)


def _is_mask(indices: list[Any]) -> bool:
    return len(indices) > 0 and all(isinstance(i, (bool, numpy.bool_)) for i in indices)


def _as_indices(indices: Any, len_: int) -> Indices:
    """Rows given by a user (``None``, a slice, a list or 1-d array of ints, or a boolean
    mask of ``len_`` entries) as ``None``, a slice or a list of ints in ``[0, len_)``."""
    if indices is None:
        return None
    if isinstance(indices, slice):
        return _range_as_slice(range(len_)[indices])
    if isinstance(indices, numpy.ndarray):
        if indices.ndim != 1:
            raise IndexError(f"TabularDataset.slice: an index array must be 1-dimensional, got shape {indices.shape}")
        indices = indices.tolist()
    if not isinstance(indices, list):
        raise TypeError(
            f"TabularDataset.slice: rows must be a slice, a list of ints or a list of bools, "
            f"got {type(indices).__name__}"
        )
    if _is_mask(indices):
        if len(indices) != len_:
            raise ValueError(
                f"TabularDataset.slice: a boolean mask must have one entry per row ({len_}), got {len(indices)}"
            )
        return [i for i, selected in enumerate(indices) if selected]
    rows = []
    for index in indices:
        try:
            i = operator.index(index)
        except TypeError:
            raise TypeError(f"TabularDataset.slice: a row index must be an int, got {type(index).__name__}") from None
        if not -len_ <= i < len_:
            raise IndexError(f"TabularDataset.slice: row {i} is out of range for a dataset of {len_} rows")
        rows.append(i + len_ if i < 0 else i)
    return rows


def _as_key_indices(keys: tuple[Any, ...], key_names: tuple[str, ...]) -> tuple[int, ...]:
    """Keys given by name or position (negative counts from the end) as positions."""
    key_indices = []
    for key in keys:
        if isinstance(key, str):
            if key not in key_names:
                raise KeyError(f"TabularDataset.slice: no key {key!r}; the keys are {key_names}")
            key_indices.append(key_names.index(key))
            continue
        try:
            k = operator.index(key)
        except TypeError:
            raise TypeError(f"TabularDataset.slice: a key must be a str or an int, got {type(key).__name__}") from None
        if not -len(key_names) <= k < len(key_names):
            raise IndexError(f"TabularDataset.slice: key position {k} is out of range for the keys {key_names}")
        key_indices.append(k % len(key_names))
    if len(set(key_indices)) != len(key_indices):
        # Repeated columns would collide in dict mode.
        raise ValueError(f"TabularDataset.slice: the keys {keys} select a column more than once")
    return tuple(key_indices)


def _merge_indices(a: Indices, b: Any, len_a: int, len_b: int) -> Indices:
    """The rows of a dataset of ``len_a`` rows that ``b`` selects from the view that
    ``a`` selects (of ``len_b`` rows)."""
    if b is None:
        return a
    if not isinstance(b, slice):
        b = [operator.index(i) for i in b]
    if a is None:
        return b
    if isinstance(a, slice):
        rows = range(len_a)[a]
        return _range_as_slice(rows[b]) if isinstance(b, slice) else [rows[i] for i in b]
    return a[b] if isinstance(b, slice) else [a[i] for i in b]


def _merge_key_indices(a: tuple[int, ...] | None, b: tuple[int, ...] | None) -> tuple[int, ...] | None:
    """The columns that ``b`` selects from the view whose columns ``a`` selects."""
    if a is None:
        return b
    if b is None:
        return a
    return tuple(a[k] for k in b)


def _count(indices: Indices, len_: int) -> int:
    if indices is None:
        return len_
    if isinstance(indices, slice):
        return len(range(len_)[indices])
    return len(indices)


class _Slice(tabular_dataset.TabularDataset):
    """Some rows and columns of a dataset. One key (not a tuple) gives mode ``None``."""

    def __init__(self, dataset: tabular_dataset.TabularDataset, indices: Any, keys: Any) -> None:
        self._dataset = dataset
        self._indices = _as_indices(indices, len(dataset))
        self._len = _count(self._indices, len(dataset))
        self._single_key = keys is not None and not isinstance(keys, (tuple, list))
        if keys is None:
            self._key_indices: tuple[int, ...] | None = None
        else:
            self._key_indices = _as_key_indices(tuple(keys) if not self._single_key else (keys,), dataset.keys)

    def __len__(self) -> int:
        return self._len

    @property
    def keys(self) -> tuple[str, ...]:
        keys = self._dataset.keys
        if self._key_indices is None:
            return keys
        return tuple(keys[k] for k in self._key_indices)

    @property
    def mode(self) -> Any:
        if self._single_key:
            return None
        mode = self._dataset.mode
        if self._key_indices is None:
            return mode
        return mode or tuple

    def get_examples(self, indices: Any, key_indices: tuple[int, ...] | None) -> tuple[Any, ...]:
        return self._dataset.get_examples(
            _merge_indices(self._indices, indices, len(self._dataset), self._len),
            _merge_key_indices(self._key_indices, key_indices),
        )

    def convert(self, data: Any) -> Any:
        return self._dataset.convert(data)


class _SliceHelper:
    """What ``dataset.slice`` returns: ``[rows]`` or ``[rows, keys]`` makes a view."""

    def __init__(self, dataset: tabular_dataset.TabularDataset) -> None:
        self._dataset = dataset

    def __getitem__(self, args: Any) -> _Slice:
        if isinstance(args, tuple):
            if len(args) != 2:
                raise IndexError(f"TabularDataset.slice takes [rows] or [rows, keys], got {len(args)} items")
            indices, keys = args
        else:
            indices, keys = args, None
        return _Slice(self._dataset, indices, keys)
