"""``with_converter(converter)``: the same dataset with another :meth:`convert`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chainer.dataset.tabular import delegate_dataset, tabular_dataset


class _WithConverter(delegate_dataset.DelegateDataset):
    """The view :meth:`TabularDataset.with_converter` returns."""

    def __init__(self, dataset: tabular_dataset.TabularDataset, converter: Callable[..., Any]) -> None:
        if not callable(converter):
            raise TypeError(
                f"TabularDataset.with_converter: converter must be callable, got {type(converter).__name__}"
            )
        super().__init__(dataset)
        self._converter = converter

    def convert(self, data: Any) -> Any:
        # Unpacked by the shape of the data rather than by this view's mode: a slice of
        # this view keeps the converter and may hand over a single column.
        mode = tuple if isinstance(data, tuple) else dict if isinstance(data, dict) else None
        return tabular_dataset.call_unpacked(self._converter, data, mode)
