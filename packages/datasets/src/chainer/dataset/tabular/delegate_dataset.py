"""``DelegateDataset``: a base for tabular datasets that wrap another one."""

from __future__ import annotations

from typing import Any

from chainer.dataset.tabular import tabular_dataset


class DelegateDataset(tabular_dataset.TabularDataset):
    """A helper class to implement a TabularDataset.

    It forwards ``__len__``, :attr:`keys`, :attr:`mode` and :meth:`get_examples` to the
    wrapped dataset, so a subclass builds a dataset in ``__init__`` and adds methods.

    Args:
        dataset: The :class:`~chainer.dataset.TabularDataset` to wrap (the attribute
            ``dataset``).

    Example:
        >>> from chainer.dataset import tabular
        >>> class Squares(tabular.DelegateDataset):
        ...     def __init__(self, n):
        ...         x = np.arange(n)
        ...         super().__init__(tabular.from_data((('x', x), ('y', x * x))))
        >>> Squares(4)[3]
        (np.int64(3), np.int64(9))
    """

    def __init__(self, dataset: tabular_dataset.TabularDataset) -> None:
        if not isinstance(dataset, tabular_dataset.TabularDataset):
            raise TypeError(f"DelegateDataset: expected a TabularDataset, got {type(dataset).__name__}")
        self.dataset = dataset

    def __len__(self) -> int:
        return len(self.dataset)

    @property
    def keys(self) -> tuple[str, ...]:
        return self.dataset.keys

    @property
    def mode(self) -> Any:
        return self.dataset.mode

    def get_examples(self, indices: Any, key_indices: tuple[int, ...] | None) -> tuple[Any, ...]:
        return self.dataset.get_examples(indices, key_indices)
