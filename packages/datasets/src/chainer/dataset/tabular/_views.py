"""Views of a tabular dataset: a slice of rows and columns, another mode, another converter."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chainer.dataset.tabular import _utils, tabular_dataset


class Slice(tabular_dataset.TabularDataset):
    """Some rows and columns of a dataset, without copying."""

    def __init__(self, dataset: tabular_dataset.TabularDataset, indices: Any, keys: Any) -> None:
        self._dataset = dataset
        where = f"{type(dataset).__name__}.slice"
        self._rows = _utils.resolve_rows(indices, len(dataset), where)
        self._single = False
        self._key_indices: tuple[int, ...] | None = None
        if keys is not None:
            self._key_indices, self._single = _utils.resolve_keys(keys, dataset.keys, where)
        self._length = _utils.count(self._rows, len(dataset))

    def __len__(self) -> int:
        return self._length

    @property
    def keys(self) -> tuple[str, ...]:
        keys = self._dataset.keys
        if self._key_indices is None:
            return keys
        return tuple(keys[k] for k in self._key_indices)

    @property
    def mode(self) -> Any:
        if self._single:
            return None
        mode = self._dataset.mode  # asked only now: a transform learns its mode from its output
        return tuple if mode is None and self._key_indices is not None else mode

    def get_examples(self, indices: Any, key_indices: tuple[int, ...] | None) -> tuple[Any, ...]:
        rows = _utils.compose(self._rows, _utils.resolve_rows(indices, self._length, "Slice.get_examples"))
        if self._key_indices is None:
            base_keys = key_indices
        elif key_indices is None:
            base_keys = self._key_indices
        else:
            base_keys = tuple(self._key_indices[k] for k in key_indices)
        return self._dataset.get_examples(_utils.as_argument(rows), base_keys)

    def convert(self, data: Any) -> Any:
        return self._dataset.convert(data)


class SliceHelper:
    """What ``dataset.slice`` returns: ``[rows]`` or ``[rows, keys]`` makes a :class:`Slice`."""

    def __init__(self, dataset: tabular_dataset.TabularDataset) -> None:
        self._dataset = dataset

    def __getitem__(self, args: Any) -> Slice:
        if isinstance(args, tuple):
            if len(args) != 2:
                raise IndexError(
                    f"{type(self._dataset).__name__}.slice takes [rows] or [rows, keys], got {len(args)} items"
                )
            indices, keys = args
        else:
            indices, keys = args, None
        return Slice(self._dataset, indices, keys)


class AsMode(tabular_dataset.TabularDataset):
    """The same dataset with examples as tuples or as dicts."""

    def __init__(self, dataset: tabular_dataset.TabularDataset, mode: Any) -> None:
        self._dataset = dataset
        self._mode = mode

    def __len__(self) -> int:
        return len(self._dataset)

    @property
    def keys(self) -> tuple[str, ...]:
        return self._dataset.keys

    @property
    def mode(self) -> Any:
        return self._mode

    def get_examples(self, indices: Any, key_indices: tuple[int, ...] | None) -> tuple[Any, ...]:
        return self._dataset.get_examples(indices, key_indices)

    def convert(self, data: Any) -> Any:
        return self._dataset.convert(data)


def call_unpacked(function: Callable[..., Any], data: Any) -> Any:
    """``function(*data)``, ``function(**data)`` or ``function(data)`` by the data's shape."""
    if isinstance(data, tuple):
        return function(*data)
    if isinstance(data, dict):
        return function(**data)
    return function(data)


class WithConverter(tabular_dataset.TabularDataset):
    """The same dataset with another :meth:`convert`."""

    def __init__(self, dataset: tabular_dataset.TabularDataset, converter: Callable[..., Any]) -> None:
        if not callable(converter):
            raise TypeError(f"with_converter: converter must be callable, got {type(converter).__name__}")
        self._dataset = dataset
        self._converter = converter

    def __len__(self) -> int:
        return len(self._dataset)

    @property
    def keys(self) -> tuple[str, ...]:
        return self._dataset.keys

    @property
    def mode(self) -> Any:
        return self._dataset.mode

    def get_examples(self, indices: Any, key_indices: tuple[int, ...] | None) -> tuple[Any, ...]:
        return self._dataset.get_examples(indices, key_indices)

    def convert(self, data: Any) -> Any:
        return call_unpacked(self._converter, data)
