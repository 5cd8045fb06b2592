"""``SubDataset`` and the functions that split a dataset (hold-out, n-way, cross validation)."""

from __future__ import annotations

import operator
import warnings
from collections.abc import Sequence
from typing import Any

import numpy

from chainer.dataset import dataset_mixin

Order = Sequence[int] | numpy.ndarray


def _as_int(value: Any, name: str, where: str) -> int:
    if isinstance(value, bool):
        raise TypeError(f"{where}: {name} must be an int, got bool")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{where}: {name} must be an int, got {type(value).__name__}") from None


class SubDataset(dataset_mixin.DatasetMixin):
    """Subset of a base dataset.

    Example ``i`` of the subset is example ``start + i`` of the base dataset, or, with
    ``order``, example ``order[start + i]``: ``order`` permutes (or selects from) the
    base dataset first, and the subset is the range ``[start, finish)`` of that order.

    Args:
        dataset: The base dataset.
        start: The first position (inclusive).
        finish: The last position (exclusive).
        order: ``None``, or a sequence of indices of the base dataset; ``start`` and
            ``finish`` index into it.

    Example:
        >>> from chainer.datasets import SubDataset
        >>> sub = SubDataset(list('abcdef'), 1, 4, order=[5, 4, 3, 2, 1, 0])
        >>> sub[:]
        ['e', 'd', 'c']
    """

    def __init__(self, dataset: Any, start: int, finish: int, order: Order | None = None) -> None:
        start = _as_int(start, "start", "SubDataset")
        finish = _as_int(finish, "finish", "SubDataset")
        n = len(dataset) if order is None else len(order)
        if not 0 <= start <= finish <= n:
            what = "the base dataset" if order is None else "order"
            raise ValueError(
                f"SubDataset: the subset [{start}, {finish}) overruns {what} of length {n}; "
                "expected 0 <= start <= finish <= length"
            )
        if order is not None and len(order) != len(dataset):
            raise ValueError(
                f"SubDataset: order must have the length of the base dataset ({len(dataset)}), got {len(order)}"
            )
        self._dataset = dataset
        self._start = start
        self._finish = finish
        self._size = finish - start
        self._order = order

    def __len__(self) -> int:
        return self._size

    def get_example(self, i: int) -> Any:
        i = dataset_mixin.normalize_index(self, i, self._size) + self._start
        if self._order is not None:
            i = self._order[i]
        return self._dataset[i]


def split_dataset(dataset: Any, split_at: int, order: Order | None = None) -> tuple[SubDataset, SubDataset]:
    """Splits a dataset into two subsets.

    Args:
        dataset: The dataset to split.
        split_at: The first subset has the examples ``[0, split_at)``, the second the rest.
        order: Optional permutation of the base dataset's indices (see :class:`SubDataset`).

    Returns:
        Two :class:`SubDataset` objects.

    Example:
        >>> from chainer.datasets import split_dataset
        >>> first, second = split_dataset(list(range(5)), 2)
        >>> first[:], second[:]
        ([0, 1], [2, 3, 4])
    """
    split_at = _as_int(split_at, "split_at", "split_dataset")
    n = len(dataset)
    if not 0 <= split_at <= n:
        raise ValueError(f"split_dataset: split_at must be in [0, {n}] for a dataset of length {n}, got {split_at}")
    return SubDataset(dataset, 0, split_at, order), SubDataset(dataset, split_at, n, order)


def split_dataset_random(dataset: Any, first_size: int, seed: int | None = None) -> tuple[SubDataset, SubDataset]:
    """Splits a dataset into two subsets randomly.

    The order is ``numpy.random.RandomState(seed).permutation(len(dataset))``, so a given
    seed gives the same split on every run (and the same split as Chainer 7).

    Args:
        dataset: The dataset to split.
        first_size: The number of examples of the first subset.
        seed: Seed of the permutation (``None``: a fresh one from the OS).

    Returns:
        Two :class:`SubDataset` objects.
    """
    order = numpy.random.RandomState(seed).permutation(len(dataset))
    return split_dataset(dataset, first_size, order)


def split_dataset_n(dataset: Any, n: int, order: Order | None = None) -> list[SubDataset]:
    """Splits a dataset into ``n`` subsets of ``len(dataset) // n`` examples each.

    Subset ``i`` holds the positions ``[i * s, (i + 1) * s)`` (of ``order``, if given),
    with ``s = len(dataset) // n``; the remaining ``len(dataset) % n`` examples are in no
    subset.

    Args:
        dataset: The dataset to split.
        n: The number of subsets (positive).
        order: Optional permutation of the base dataset's indices.

    Returns:
        A list of ``n`` :class:`SubDataset` objects.
    """
    n = _as_int(n, "n", "split_dataset_n")
    if n <= 0:
        raise ValueError(f"split_dataset_n: n must be positive, got {n}")
    size = len(dataset) // n
    return [SubDataset(dataset, size * i, size * (i + 1), order) for i in range(n)]


def split_dataset_n_random(dataset: Any, n: int, seed: int | None = None) -> list[SubDataset]:
    """Splits a dataset into ``n`` random subsets of ``len(dataset) // n`` examples each.

    Args:
        dataset: The dataset to split.
        n: The number of subsets.
        seed: Seed of the permutation ``numpy.random.RandomState(seed).permutation``.

    Returns:
        A list of ``n`` :class:`SubDataset` objects.
    """
    order = numpy.random.RandomState(seed).permutation(len(dataset))
    return split_dataset_n(dataset, n, order)


def get_cross_validation_datasets(
    dataset: Any, n_folds: int | None = None, order: Order | None = None, **kwargs: Any
) -> list[tuple[SubDataset, SubDataset]]:
    """Creates a set of training/test splits for cross validation.

    The positions of ``order`` (default: ``0, 1, ..., len(dataset) - 1``) are cut into
    ``n_folds`` blocks whose sizes differ by at most one; each block is the test set of
    one split, whose training set is all the other examples. The test sets are disjoint
    and together cover the dataset.

    Args:
        dataset: The dataset to split.
        n_folds: The number of splits (at least 2). ``n_fold=`` is accepted as an
            older, deprecated name.
        order: Optional permutation of the base dataset's indices.

    Returns:
        A list of ``n_folds`` ``(train, test)`` pairs of :class:`SubDataset`.
    """
    if "n_fold" in kwargs:
        # No stacklevel: attributed to Chainer as in Chainer 7 (Python's default filters hide it).
        warnings.warn("get_cross_validation_datasets: 'n_fold' is deprecated; use 'n_folds'", DeprecationWarning)
        old = kwargs.pop("n_fold")
        if n_folds is None:
            n_folds = old
    if kwargs:
        raise TypeError(f"get_cross_validation_datasets() got unexpected keyword argument(s) {sorted(kwargs)}")
    if n_folds is None:
        raise TypeError("get_cross_validation_datasets: n_folds is required")
    n_folds = _as_int(n_folds, "n_folds", "get_cross_validation_datasets")
    n = len(dataset)
    if not 2 <= n_folds <= max(n, 2):
        raise ValueError(f"get_cross_validation_datasets: n_folds must be in [2, {max(n, 2)}], got {n_folds}")
    current = numpy.arange(n) if order is None else numpy.array(order)
    if len(current) != n:
        raise ValueError(
            f"get_cross_validation_datasets: order must have the length of the dataset ({n}), got {len(current)}"
        )
    borders = [n * i // n_folds for i in range(n_folds + 1)]
    test_sizes = [borders[i + 1] - borders[i] for i in range(n_folds)]
    splits = []
    # Each split puts one block at the end of the order (its test set), then the order
    # rotates so that the next block comes to the end.
    for test_size in reversed(test_sizes):
        splits.append(split_dataset(dataset, n - test_size, current))
        current = numpy.concatenate([current[n - test_size :], current[: n - test_size]])
    return splits


def get_cross_validation_datasets_random(
    dataset: Any, n_folds: int, seed: int | None = None, **kwargs: Any
) -> list[tuple[SubDataset, SubDataset]]:
    """Creates a set of training/test splits for cross validation randomly.

    The same as :func:`get_cross_validation_datasets` with the order
    ``numpy.random.RandomState(seed).permutation(len(dataset))``.

    Args:
        dataset: The dataset to split.
        n_folds: The number of splits.
        seed: Seed of the permutation.

    Returns:
        A list of ``n_folds`` ``(train, test)`` pairs of :class:`SubDataset`.
    """
    order = numpy.random.RandomState(seed).permutation(len(dataset))
    return get_cross_validation_datasets(dataset, n_folds, order, **kwargs)
