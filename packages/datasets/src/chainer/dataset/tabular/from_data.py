"""``from_data``: a tabular dataset from lists, arrays and functions of the index."""

from __future__ import annotations

import itertools
from typing import Any

import numpy

from chainer.dataset.tabular import tabular_dataset

# Unnamed columns get names no other column has, so that datasets made by separate
# calls can be joined.
_unnamed = itertools.count()


def _is_array(data: Any) -> bool:
    return isinstance(data, numpy.ndarray) or hasattr(data, "__array_namespace__")


class _Column(tabular_dataset.TabularDataset):
    """One named column held in ``data`` (mode ``None``)."""

    def __init__(self, key: str, data: Any) -> None:
        self._key = key
        self._data = data

    def __len__(self) -> int:
        return len(self._data)

    @property
    def keys(self) -> tuple[str, ...]:
        return (self._key,)

    @property
    def mode(self) -> Any:
        return None


class _Array(_Column):
    """One column held in an array; rows are read by indexing the array."""

    def __init__(self, key: str, data: Any) -> None:
        if data.ndim == 0:
            raise TypeError(f"from_data: the column {key!r} is a 0-dimensional array; it needs one entry per example")
        super().__init__(key, data)

    def get_examples(self, indices: Any, key_indices: tuple[int, ...] | None) -> tuple[Any, ...]:
        data = self._data if indices is None else self._data[indices]
        return (data,) * (1 if key_indices is None else len(key_indices))


class _List(_Column):
    """One column held in a list (or another sequence); rows come back as a list."""

    def get_examples(self, indices: Any, key_indices: tuple[int, ...] | None) -> tuple[Any, ...]:
        data = self._data
        if indices is None:
            rows = list(data)
        elif isinstance(indices, slice):
            rows = [data[i] for i in range(len(data))[indices]]
        else:
            rows = [data[i] for i in indices]
        return (rows,) * (1 if key_indices is None else len(key_indices))


class _Index(tabular_dataset.TabularDataset):
    """The row numbers ``0 .. size-1`` as one column: what a function of the index reads."""

    def __init__(self, size: int) -> None:
        self._size = size

    def __len__(self) -> int:
        return self._size

    @property
    def keys(self) -> tuple[str, ...]:
        return ("index",)

    @property
    def mode(self) -> Any:
        return None

    def get_examples(self, indices: Any, key_indices: tuple[int, ...] | None) -> tuple[Any, ...]:
        if indices is None:
            rows = list(range(self._size))
        elif isinstance(indices, slice):
            rows = list(range(self._size)[indices])
        else:
            rows = list(indices)
        return (rows,) * (1 if key_indices is None else len(key_indices))


def _is_function(data: Any) -> bool:
    return callable(data) and not _is_array(data)


def _is_keys(key: Any) -> bool:
    return isinstance(key, str) or (isinstance(key, tuple) and all(isinstance(k, str) for k in key))


def _make_dataset(key: Any, data: Any, size: int | None) -> tabular_dataset.TabularDataset:
    """One column (``key`` a str or ``None``) or, for a function, several (``key`` a
    tuple of str) as a dataset."""
    if _is_function(data):
        if key is None:
            raise ValueError("from_data: a function column needs a key: pass (key, function)")
        if size is None:
            raise ValueError(
                f"from_data: the number of examples of the function column {key!r} is unknown; pass size= "
                "or an array or list column beside it"
            )
        return _Index(size).transform(key, data)
    if key is None:
        key = f"_{next(_unnamed)}"
    if not isinstance(key, str):
        raise TypeError(f"from_data: the key of a list or array column must be a str, got {key!r}")
    if _is_array(data):
        return _Array(key, data)
    if isinstance(data, (str, bytes)) or not hasattr(data, "__len__") or not hasattr(data, "__getitem__"):
        raise TypeError(
            f"from_data: the column {key!r} must be a list, an array or a function of the index, "
            f"got {type(data).__name__}"
        )
    return _List(key, data)


def _entries(data: Any) -> tuple[Any, list[tuple[Any, Any]]]:
    """The mode ``data`` asks for and its ``(key, column)`` entries (key ``None``: unnamed)."""
    if isinstance(data, dict):
        for key in data:
            if not _is_keys(key):
                raise TypeError(f"from_data: a key of the dict must be a str or a tuple of str, got {key!r}")
        return dict, list(data.items())
    if isinstance(data, tuple):
        if len(data) == 2 and _is_keys(data[0]):
            return None, [data]
        entries = []
        for entry in data:
            if isinstance(entry, tuple) and len(entry) == 2 and _is_keys(entry[0]):
                entries.append(entry)
            else:
                entries.append((None, entry))
        return tuple, entries
    return None, [(None, data)]


def from_data(data: Any, *, size: int | None = None) -> tabular_dataset.TabularDataset:
    """Create a TabularDataset from lists/arrays/callables.

    A column is an array (rows come back as arrays), a list (rows come back as lists) or
    a function of the row number, given with its key, ``(key, function)``, that returns
    the value, or with a tuple of keys, ``((key, ...), function)``, that returns a tuple
    or dict of values. The shape of ``data`` decides the mode:

    - one column or ``(key, column)`` pair: mode ``None`` (a function of several keys:
      the mode of what it returns);
    - a tuple of columns and ``(key, column)`` pairs: mode ``tuple``;
    - a dict from keys (or tuples of keys, for a function) to columns: mode ``dict``.

    An unnamed column gets a name that no other column has.

    Args:
        data: The columns, as above.
        size: The number of examples; needed when every column is a function.

    Returns:
        A :class:`~chainer.dataset.TabularDataset`.

    Example:
        >>> from chainer.dataset import tabular
        >>> table = tabular.from_data((('x', np.arange(3)), ('sq', lambda i: i * i)))
        >>> table.keys, table[2]
        (('x', 'sq'), (np.int64(2), 4))
    """
    if size is not None and (not isinstance(size, int) or isinstance(size, bool) or size < 0):
        raise ValueError(f"from_data: size must be a non-negative int, got {size!r}")
    mode, entries = _entries(data)
    # The functions take their length from the lists and arrays beside them.
    lengths = [len(column) for _, column in entries if not _is_function(column) and hasattr(column, "__len__")]
    if size is not None:
        lengths.insert(0, size)
    if len(set(lengths)) > 1:
        given = "size= and the columns" if size is not None else "the columns"
        raise ValueError(f"from_data: {given} have different lengths {lengths}")
    if lengths:
        size = lengths[0]
    datasets = [_make_dataset(key, column, size) for key, column in entries]
    if mode is None:
        return datasets[0]
    joined = datasets[0].join(*datasets[1:])
    return joined.astuple() if mode is tuple else joined.asdict()
