"""``TabularDataset``: a dataset of named columns, with column-wise access and views."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy

from chainer.dataset import dataset_mixin


def _as_array(data: Any) -> Any:
    """``data`` as an array: arrays (NumPy, CuPy, any array-API array) unchanged, lists converted."""
    if isinstance(data, numpy.ndarray) or hasattr(data, "__array_namespace__"):
        return data
    return numpy.asarray(data)


class TabularDataset(dataset_mixin.DatasetMixin):
    """An abstract class that represents tabular dataset.

    A tabular dataset is a table: rows are examples, columns have names (:attr:`keys`).
    An example is a tuple (``mode`` is ``tuple``), a dict (``mode`` is ``dict``) or, for a
    single column, the bare value (``mode`` is ``None``). Reading several rows at once
    goes column by column through :meth:`get_examples`, which a subclass implements
    together with ``__len__``, :attr:`keys` and :attr:`mode`.

    Views are cheap and compose: ``dataset.slice[rows, keys]``, :meth:`astuple`,
    :meth:`asdict`, :meth:`concat`, :meth:`join`, :meth:`transform`,
    :meth:`transform_batch` and :meth:`with_converter`. A view asks the dataset it
    comes from for exactly the rows and columns it needs, in one call.

    Example:
        >>> from chainer.dataset import tabular
        >>> table = tabular.from_data({'x': np.arange(6) * 10, 'y': list('abcdef')})
        >>> table[1]
        {'x': np.int64(10), 'y': 'b'}
        >>> table.slice[::2, 'y'].fetch()
        ['a', 'c', 'e']
    """

    def __len__(self) -> int:
        raise NotImplementedError(f"{type(self).__name__} must implement __len__")

    @property
    def keys(self) -> tuple[str, ...]:
        """The names of the columns."""
        raise NotImplementedError(f"{type(self).__name__} must implement the 'keys' property")

    @property
    def mode(self) -> Any:
        """How an example looks: ``tuple``, ``dict``, or ``None`` (one column, bare value)."""
        raise NotImplementedError(f"{type(self).__name__} must implement the 'mode' property")

    def get_examples(self, indices: Any, key_indices: tuple[int, ...] | None) -> tuple[Any, ...]:
        """Return some rows of some columns; a subclass must implement it.

        Args:
            indices: The rows: ``None`` (all), a slice (any step), or a list of
                non-negative integers.
            key_indices: Positions in :attr:`keys` of the columns to return, as a tuple,
                or ``None`` (all, in order).

        Returns:
            A tuple with one list or array per requested column.
        """
        raise NotImplementedError(f"{type(self).__name__} must implement get_examples(indices, key_indices)")

    # -------------------------------------------------------------- reading

    def _pack(self, columns: tuple[Any, ...]) -> Any:
        """Columns (or the values of one example) in the shape of :attr:`mode`."""
        mode = self.mode
        if mode is tuple:
            return tuple(columns)
        if mode is dict:
            return dict(zip(self.keys, columns))
        if mode is None:
            return columns[0]
        raise ValueError(f"{type(self).__name__}: mode must be tuple, dict or None, got {mode!r}")

    def fetch(self) -> Any:
        """Fetch all rows, column by column.

        Returns:
            A tuple (``mode`` ``tuple``) or dict (``mode`` ``dict``) of columns, or the
            one column (``mode`` ``None``). A column is a list or an array, as the data
            holds it; :meth:`convert` turns them into arrays.
        """
        return self._pack(tuple(self.get_examples(None, None)))

    def convert(self, data: Any) -> Any:
        """Convert fetched data (the result of :meth:`fetch`) for a model.

        The default turns each column into an array. :meth:`with_converter` replaces it;
        views, :meth:`concat`, :meth:`join` and :meth:`transform` keep the converter of
        the (first) dataset they come from.

        Args:
            data: A tuple, dict or single column.

        Returns:
            The same structure with arrays.
        """
        if isinstance(data, tuple):
            return tuple(_as_array(column) for column in data)
        if isinstance(data, dict):
            return {key: _as_array(column) for key, column in data.items()}
        return _as_array(data)

    def get_example(self, i: int) -> Any:
        i = dataset_mixin.normalize_index(self, i, len(self))
        columns = self.get_examples([i], None)
        return self._pack(tuple(column[0] for column in columns))

    def __getitem__(self, index: Any) -> Any:
        if not dataset_mixin.is_batch_index(index):
            return self.get_example(index)
        # One get_examples call for the whole batch instead of one per example.
        from chainer.dataset.tabular import _slice

        indices = _slice._as_indices(index, len(self))
        columns = self.get_examples(indices, None)
        n = _slice._count(indices, len(self))
        return [self._pack(tuple(column[j] for column in columns)) for j in range(n)]

    def __iter__(self) -> Iterator[Any]:
        for i in range(len(self)):
            yield self.get_example(i)

    # ---------------------------------------------------------------- views

    @property
    def slice(self) -> Any:
        """A view of some rows and columns: ``dataset.slice[rows]`` or
        ``dataset.slice[rows, keys]``.

        ``rows`` is a slice, a list of indices or a list of booleans (a mask of
        ``len(dataset)`` entries); ``keys`` is a name or position (the view has ``mode``
        ``None``) or a tuple of them (the view keeps the mode; ``tuple`` if it had none).
        """
        from chainer.dataset.tabular import _slice

        return _slice._SliceHelper(self)

    def astuple(self) -> TabularDataset:
        """A view whose examples are tuples."""
        from chainer.dataset.tabular import _asmode

        return _asmode._Astuple(self)

    def asdict(self) -> TabularDataset:
        """A view whose examples are dicts."""
        from chainer.dataset.tabular import _asmode

        return _asmode._Asdict(self)

    def concat(self, *datasets: TabularDataset) -> TabularDataset:
        """Stack datasets with the same keys (in the same order) row-wise, this one first.

        Returns:
            A dataset of ``len(self) + sum(len(d) for d in datasets)`` rows with the keys
            and mode of this one.
        """
        from chainer.dataset.tabular import _concat

        return _concat._Concat(self, *datasets)

    def join(self, *datasets: TabularDataset) -> TabularDataset:
        """Put the columns of datasets with the same length side by side.

        Keys must not repeat. The result has the first mode among the datasets that is
        not ``None``, or ``tuple``.
        """
        from chainer.dataset.tabular import _join

        return _join._Join(self, *datasets)

    def transform(self, keys: Any, transform: Callable[..., Any]) -> TabularDataset:
        """Apply a function to each example.

        ``transform`` receives an example unpacked: ``transform(*values)`` in tuple
        mode, ``transform(**values)`` in dict mode, ``transform(value)`` in mode
        ``None``. What it returns sets the mode of the result: a tuple (``tuple``), a
        dict (``dict``) or a bare value (``None``, for one key). It must return the same
        kind every time.

        Args:
            keys: The names of the output columns: a tuple of str, or one str.
            transform: The function.
        """
        from chainer.dataset.tabular import _transform

        return _transform._Transform(self, keys, transform)

    def transform_batch(self, keys: Any, transform_batch: Callable[..., Any]) -> TabularDataset:
        """Apply a function to several examples at once, column by column.

        Like :meth:`transform`, but ``transform_batch`` receives and returns columns
        (lists or arrays with one entry per example); it must keep their length.
        """
        from chainer.dataset.tabular import _transform

        return _transform._TransformBatch(self, keys, transform_batch)

    def with_converter(self, converter: Callable[..., Any]) -> TabularDataset:
        """A view whose :meth:`convert` is ``converter``.

        ``converter`` receives the fetched columns unpacked like the function of
        :meth:`transform` (``converter(*columns)``, ``converter(**columns)`` or
        ``converter(column)``).
        """
        from chainer.dataset.tabular import _with_converter

        return _with_converter._WithConverter(self, converter)

    def __repr__(self) -> str:
        mode = getattr(self.mode, "__name__", None)
        return f"<{type(self).__name__} len={len(self)} keys={self.keys} mode={mode}>"


def call_unpacked(function: Callable[..., Any], data: Any, mode: Any) -> Any:
    """``function(*data)``, ``function(**data)`` or ``function(data)`` by ``mode``."""
    if mode is tuple:
        return function(*data)
    if mode is dict:
        return function(**data)
    return function(data)
