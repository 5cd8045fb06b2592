"""``from_data``: a tabular dataset from lists, arrays and functions."""

from __future__ import annotations

from typing import Any

import numpy

from chainer.dataset.tabular import _utils, tabular_dataset


class _Columns(tabular_dataset.TabularDataset):
    def __init__(self, keys: tuple[str, ...], columns: list[Any], length: int, mode: Any) -> None:
        self._keys = keys
        self._columns = columns
        self._length = length
        self._mode = mode

    def __len__(self) -> int:
        return self._length

    @property
    def keys(self) -> tuple[str, ...]:
        return self._keys

    @property
    def mode(self) -> Any:
        return self._mode

    def get_examples(self, indices: Any, key_indices: tuple[int, ...] | None) -> tuple[Any, ...]:
        rows = _utils.as_argument(_utils.resolve_rows(indices, self._length, "from_data.get_examples"))
        if key_indices is None:
            key_indices = tuple(range(len(self._keys)))
        out = []
        for k in key_indices:
            column = self._columns[k]
            if callable(column):
                positions = range(self._length)[rows] if isinstance(rows, slice) else rows
                if positions is None:
                    positions = range(self._length)
                out.append([column(int(i)) for i in positions])
            else:
                out.append(_utils.take(column, rows))
        return tuple(out)


def _split_named(entry: Any) -> tuple[str | None, Any]:
    if isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[0], str):
        return entry[0], entry[1]
    return None, entry


def _check_column(key: str, column: Any) -> int | None:
    if callable(column) and not hasattr(column, "__len__"):
        return None
    if isinstance(column, (str, bytes)) or not hasattr(column, "__len__") or not hasattr(column, "__getitem__"):
        raise TypeError(
            f"from_data: the column {key!r} must be a list, an array or a callable of the index, "
            f"got {type(column).__name__}"
        )
    if isinstance(column, numpy.ndarray) and column.ndim == 0:
        raise TypeError(f"from_data: the column {key!r} is a 0-dimensional array; it needs one entry per example")
    return len(column)


def from_data(data: Any, *, size: int | None = None) -> tabular_dataset.TabularDataset:
    """Create a TabularDataset from lists/arrays/callables.

    A column is a list, an array, or a callable that returns the entry of an index
    (``f(i)``). The shape of ``data`` decides the mode:

    - one column, or a ``(key, column)`` pair: mode ``None``;
    - a tuple of columns or ``(key, column)`` pairs: mode ``tuple``;
    - a dict of columns: mode ``dict``.

    Unnamed columns are called ``'_0'``, ``'_1'``, ... by position.

    Args:
        data: The columns, as above.
        size: The number of examples; needed only when every column is a callable, and
            checked against the columns otherwise.

    Returns:
        A :class:`~chainer.dataset.TabularDataset`.

    Example:
        >>> from chainer.dataset import tabular
        >>> table = tabular.from_data((np.arange(3), ('sq', lambda i: i * i)))
        >>> table.keys, table[2]
        (('_0', 'sq'), (np.int64(2), 4))
    """
    if isinstance(data, dict):
        mode: Any = dict
        entries = list(data.items())
        for key, _ in entries:
            if not isinstance(key, str):
                raise TypeError(f"from_data: the keys of a dict must be str, got {key!r}")
    else:
        named_key, column = _split_named(data)
        if named_key is not None or not isinstance(data, tuple):
            mode = None
            entries = [(named_key if named_key is not None else "_0", column)]
        else:
            mode = tuple
            entries = []
            for position, entry in enumerate(data):
                key, column = _split_named(entry)
                entries.append((key if key is not None else f"_{position}", column))
    keys = tuple(key for key, _ in entries)
    if len(set(keys)) != len(keys):
        raise ValueError(f"from_data: the keys {keys} are not unique")
    lengths = {key: n for key, column in entries if (n := _check_column(key, column)) is not None}
    if size is not None:
        if not isinstance(size, int) or size < 0:
            raise ValueError(f"from_data: size must be a non-negative int, got {size!r}")
        lengths.setdefault("size=", size)
    if not lengths:
        raise ValueError("from_data: every column is a callable, so the number of examples must be given as size=")
    if len(set(lengths.values())) != 1:
        raise ValueError(f"from_data: the columns have different lengths {lengths}")
    length = next(iter(lengths.values()))
    return _Columns(keys, [column for _, column in entries], length, mode)
