"""``astuple()`` and ``asdict()``: the same rows and columns with examples of another shape."""

from __future__ import annotations

from typing import Any

from chainer.dataset.tabular import tabular_dataset


class _AsMode(tabular_dataset.TabularDataset):
    _mode: Any = None

    def __init__(self, dataset: tabular_dataset.TabularDataset) -> None:
        self._dataset = dataset

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


class _Astuple(_AsMode):
    """The view :meth:`TabularDataset.astuple` returns: examples are tuples."""

    _mode = tuple


class _Asdict(_AsMode):
    """The view :meth:`TabularDataset.asdict` returns: examples are dicts."""

    _mode = dict
