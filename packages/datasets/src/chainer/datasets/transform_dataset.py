"""``TransformDataset``: a function applied to each example of a dataset, on access."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chainer.dataset import dataset_mixin


class TransformDataset(dataset_mixin.DatasetMixin):
    """Dataset that indexes the base dataset and transforms the data.

    ``dataset[i]`` is ``transform(base[i])``, computed on every access (so a random
    augmentation gives a new result each time). To use the dataset with
    ``MultiprocessIterator`` under the ``spawn`` start method, ``transform`` must be
    picklable (a module-level function, not a lambda).

    Args:
        dataset: The base dataset.
        transform: A function of one example.

    Example:
        >>> from chainer.datasets import TransformDataset
        >>> ds = TransformDataset([1, 2, 3], lambda x: x * 10)
        >>> ds[1:]
        [20, 30]
    """

    def __init__(self, dataset: Any, transform: Callable[[Any], Any]) -> None:
        if not callable(transform):
            raise TypeError(f"TransformDataset: transform must be callable, got {type(transform).__name__}")
        self._dataset = dataset
        self._transform = transform

    def __len__(self) -> int:
        return len(self._dataset)

    def get_example(self, i: int) -> Any:
        return self._transform(self._dataset[i])
