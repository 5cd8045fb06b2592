"""Datasets computed from another tabular dataset, example by example or batch by batch."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chainer.dataset.tabular import _utils, _views, tabular_dataset

_UNKNOWN = object()


class _TransformBase(tabular_dataset.TabularDataset):
    _where = "transform"

    def __init__(self, dataset: tabular_dataset.TabularDataset, keys: Any, function: Callable[..., Any]) -> None:
        if not callable(function):
            raise TypeError(f"TabularDataset.{self._where}: the transform must be callable, got {type(function)}")
        self._dataset = dataset
        self._single = isinstance(keys, str)
        self._keys = _utils.check_keys(keys, f"TabularDataset.{self._where}")
        self._function = function
        # Known once an output has been seen (or at once for a single str key).
        self._mode: Any = None if self._single else _UNKNOWN

    def __len__(self) -> int:
        return len(self._dataset)

    @property
    def keys(self) -> tuple[str, ...]:
        return self._keys

    @property
    def mode(self) -> Any:
        if self._mode is _UNKNOWN:
            if len(self) == 0:
                return tuple
            self.get_examples(slice(0, 1), None)
        return self._mode

    def _learn_mode(self, output: Any) -> None:
        if self._single:
            return  # one bare column: the output is the value, whatever its type
        if isinstance(output, tuple):
            mode: Any = tuple
        elif isinstance(output, dict):
            mode = dict
        else:
            mode = None
        if self._mode is _UNKNOWN:
            self._mode = mode
        if mode is tuple:
            if len(output) != len(self._keys):
                raise ValueError(
                    f"TabularDataset.{self._where}: the function returned a tuple of {len(output)} items for the "
                    f"{len(self._keys)} keys {self._keys}"
                )
        elif mode is dict:
            if set(output) != set(self._keys):
                raise ValueError(
                    f"TabularDataset.{self._where}: the function returned a dict with keys {sorted(output)}, "
                    f"expected {sorted(self._keys)}"
                )
        elif len(self._keys) != 1:
            raise ValueError(
                f"TabularDataset.{self._where}: the function returned a {type(output).__name__}, but the keys "
                f"{self._keys} need a tuple or a dict"
            )

    def _columns_of(self, output: Any) -> tuple[Any, ...]:
        if self._single:
            return (output,)
        if isinstance(output, tuple):
            return output
        if isinstance(output, dict):
            return tuple(output[key] for key in self._keys)
        return (output,)

    def _input(self, indices: Any) -> tuple[Any, ...]:
        return tuple(self._dataset.get_examples(indices, None))


class Transform(_TransformBase):
    """``function`` applied to each example of ``dataset``."""

    _where = "transform"

    def get_examples(self, indices: Any, key_indices: tuple[int, ...] | None) -> tuple[Any, ...]:
        columns = self._input(indices)
        n = len(columns[0]) if columns else 0
        in_mode, in_keys = self._dataset.mode, self._dataset.keys
        outputs: list[list[Any]] = [[] for _ in self._keys]
        for j in range(n):
            values = tuple(column[j] for column in columns)
            example: Any = values if in_mode is tuple else dict(zip(in_keys, values)) if in_mode is dict else values[0]
            output = _views.call_unpacked(self._function, example)
            self._learn_mode(output)
            for k, value in enumerate(self._columns_of(output)):
                outputs[k].append(value)
        if key_indices is None:
            return tuple(outputs)
        return tuple(outputs[k] for k in key_indices)


class TransformBatch(_TransformBase):
    """``function`` applied to columns of several examples of ``dataset`` at once."""

    _where = "transform_batch"

    def get_examples(self, indices: Any, key_indices: tuple[int, ...] | None) -> tuple[Any, ...]:
        columns = self._input(indices)
        in_mode, in_keys = self._dataset.mode, self._dataset.keys
        batch: Any = columns if in_mode is tuple else dict(zip(in_keys, columns)) if in_mode is dict else columns[0]
        output = _views.call_unpacked(self._function, batch)
        self._learn_mode(output)
        outputs = self._columns_of(output)
        n = len(columns[0]) if columns else None
        for key, column in zip(self._keys, outputs):
            if n is not None and len(column) != n:
                raise ValueError(
                    f"TabularDataset.transform_batch: the column {key!r} returned by the function has "
                    f"{len(column)} entries for {n} examples"
                )
        if key_indices is None:
            return tuple(outputs)
        return tuple(outputs[k] for k in key_indices)
