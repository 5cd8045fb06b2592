"""``transform`` and ``transform_batch``: datasets computed from another, on access."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chainer.dataset.tabular import tabular_dataset

_NOT_SEEN = object()


def _mode_name(mode: Any) -> str:
    return getattr(mode, "__name__", "a single value")


class _TransformBase(tabular_dataset.TabularDataset):
    _where = ""

    def __init__(self, dataset: tabular_dataset.TabularDataset, keys: Any, function: Callable[..., Any]) -> None:
        where = f"TabularDataset.{self._where}"
        if not callable(function):
            raise TypeError(f"{where}: the function must be callable, got {type(function).__name__}")
        if isinstance(keys, str):
            keys = (keys,)
        if not isinstance(keys, (tuple, list)) or not all(isinstance(key, str) for key in keys):
            raise TypeError(f"{where}: keys must be a str or a tuple of str, got {keys!r}")
        if len(set(keys)) != len(keys):
            raise ValueError(f"{where}: keys must be unique, got {tuple(keys)}")
        self._dataset = dataset
        self._keys = tuple(keys)
        self._function = function
        # The mode is what the function returns, so it is known once it has been called.
        self._mode: Any = _NOT_SEEN

    def __len__(self) -> int:
        return len(self._dataset)

    @property
    def keys(self) -> tuple[str, ...]:
        return self._keys

    @property
    def mode(self) -> Any:
        if self._mode is _NOT_SEEN:
            if len(self) == 0:
                return tuple if len(self._keys) != 1 else None
            self.get_examples([0], None)
        return self._mode

    def _columns_of(self, output: Any) -> tuple[Any, ...]:
        """The output of the function as one value (or column) per key, checking that
        it has the kind of the earlier outputs and fits the keys."""
        where = f"TabularDataset.{self._where}"
        mode = tuple if isinstance(output, tuple) else dict if isinstance(output, dict) else None
        if self._mode is not _NOT_SEEN and mode is not self._mode:
            raise ValueError(
                f"{where}: the function returned {_mode_name(mode)} after returning {_mode_name(self._mode)}; "
                "it must return the same kind every time"
            )
        if mode is tuple:
            if len(output) != len(self._keys):
                raise ValueError(
                    f"{where}: the function returned a tuple of {len(output)} items for the keys {self._keys}"
                )
            columns = output
        elif mode is dict:
            if set(output) != set(self._keys):
                raise ValueError(f"{where}: the function returned a dict with keys {tuple(output)}, not {self._keys}")
            columns = tuple(output[key] for key in self._keys)
        else:
            if len(self._keys) != 1:
                raise ValueError(
                    f"{where}: the function returned a {type(output).__name__}, but the keys {self._keys} "
                    "need a tuple or a dict"
                )
            columns = (output,)
        self._mode = mode
        return columns

    def convert(self, data: Any) -> Any:
        return self._dataset.convert(data)


class _Transform(_TransformBase):
    """The dataset :meth:`TabularDataset.transform` returns: the function applied to each
    example; each column is a list."""

    _where = "transform"

    def get_examples(self, indices: Any, key_indices: tuple[int, ...] | None) -> tuple[Any, ...]:
        in_mode, in_keys = self._dataset.mode, self._dataset.keys
        outputs: list[list[Any]] = [[] for _ in self._keys]
        for values in zip(*self._dataset.get_examples(indices, None)):
            example: Any = dict(zip(in_keys, values)) if in_mode is dict else values
            if in_mode is None:
                example = values[0]
            for column, value in zip(
                outputs, self._columns_of(tabular_dataset.call_unpacked(self._function, example, in_mode))
            ):
                column.append(value)
        if key_indices is None:
            return tuple(outputs)
        return tuple(outputs[k] for k in key_indices)


class _TransformBatch(_TransformBase):
    """The dataset :meth:`TabularDataset.transform_batch` returns: the function applied to
    the columns of the requested rows at once."""

    _where = "transform_batch"

    def get_examples(self, indices: Any, key_indices: tuple[int, ...] | None) -> tuple[Any, ...]:
        in_mode, in_keys = self._dataset.mode, self._dataset.keys
        columns = tuple(self._dataset.get_examples(indices, None))
        batch: Any = dict(zip(in_keys, columns)) if in_mode is dict else columns
        if in_mode is None:
            batch = columns[0]
        outputs = self._columns_of(tabular_dataset.call_unpacked(self._function, batch, in_mode))
        n = len(columns[0]) if columns else None
        for key, column in zip(self._keys, outputs):
            if n is not None and len(column) != n:
                raise ValueError(
                    f"TabularDataset.transform_batch: the function returned {len(column)} values of {key!r} "
                    f"for {n} examples"
                )
        if key_indices is None:
            return tuple(outputs)
        return tuple(outputs[k] for k in key_indices)
