"""``with_converter(converter)``: the same dataset with another :meth:`convert`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chainer.dataset.tabular import tabular_dataset


class _WithConverter(tabular_dataset.TabularDataset):
    """The view :meth:`TabularDataset.with_converter` returns."""

    def __init__(self, dataset: tabular_dataset.TabularDataset, converter: Callable[..., Any]) -> None:
        if not callable(converter):
            raise TypeError(
                f"TabularDataset.with_converter: converter must be callable, got {type(converter).__name__}"
            )
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
        # Unpacked by the shape of the data rather than by this view's mode: a slice of
        # this view keeps the converter and may hand over a single column.
        mode = tuple if isinstance(data, tuple) else dict if isinstance(data, dict) else None
        return tabular_dataset.call_unpacked(self._converter, data, mode)
