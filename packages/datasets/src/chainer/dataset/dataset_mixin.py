"""``DatasetMixin``: indexing by int, slice and index lists on top of ``get_example``."""

from __future__ import annotations

import operator
from typing import Any

import numpy


def normalize_index(owner: object, index: Any, length: int) -> int:
    """Return ``index`` as an int in ``[0, length)``; a negative index counts from the end.

    Raises ``TypeError`` for a non-integer and ``IndexError`` when out of range; both
    messages name the class of ``owner``.
    """
    try:
        i = operator.index(index)
    except TypeError:
        raise TypeError(
            f"{type(owner).__name__}: an example index must be an integer, got {type(index).__name__}"
        ) from None
    j = i + length if i < 0 else i
    if not 0 <= j < length:
        raise IndexError(f"{type(owner).__name__}: index {i} is out of range for a dataset of length {length}")
    return j


def is_batch_index(index: Any) -> bool:
    """Whether ``index`` selects a list of examples (a slice, a list or an index array)."""
    return isinstance(index, (slice, list, numpy.ndarray))


def take(dataset: Any, index: Any) -> Any:
    """``dataset[index]``, where a list or array ``index`` also works on a Python list or
    tuple (which do not accept one)."""
    if isinstance(dataset, (list, tuple)) and isinstance(index, (list, numpy.ndarray)):
        return [dataset[i] for i in index]
    return dataset[index]


class DatasetMixin:
    """Default implementation of dataset indexing.

    A subclass implements :meth:`get_example` (one example by an integer index) and
    ``__len__``; ``dataset[index]`` then also accepts a slice, a list of integers or a
    1-d integer array, and returns the list of those examples.

    Example:
        >>> class Squares(chainer.dataset.DatasetMixin):
        ...     def __len__(self):
        ...         return 5
        ...     def get_example(self, i):
        ...         return i * i
        >>> Squares()[1:4]
        [1, 4, 9]
    """

    def __getitem__(self, index: Any) -> Any:
        # An integer goes to get_example unchanged (as in Chainer 7): a subclass may accept
        # negative indices, or have no __len__ at all.
        if isinstance(index, slice):
            return [self.get_example(i) for i in range(*index.indices(len(self)))]
        if isinstance(index, (list, numpy.ndarray)):
            return [self.get_example(i) for i in index]
        return self.get_example(index)

    def __len__(self) -> int:
        """Number of examples; a subclass must implement it."""
        raise NotImplementedError(f"{type(self).__name__} must implement __len__")

    def get_example(self, i: int) -> Any:
        """Return the ``i``-th example; a subclass must implement it.

        Args:
            i: The index of the example.

        Returns:
            The ``i``-th example.
        """
        raise NotImplementedError(f"{type(self).__name__} must implement get_example(i)")
