"""Index arithmetic shared by the tabular views.

Row selections are kept as ``None`` (all rows), a ``range`` (what a slice selects, which
composes exactly: ``range[slice]`` is a range) or a 1-d ``int64`` array of non-negative
indices. Columns are lists or arrays.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy

Rows = None | range | numpy.ndarray


def resolve_rows(indices: Any, length: int, where: str) -> Rows:
    """Turn ``None``, a slice, a list or an array of indices (or a boolean mask) into
    ``Rows`` with every index checked against ``length``."""
    if indices is None:
        return None
    if isinstance(indices, range):
        indices = slice(indices.start, indices.stop, indices.step)
    if isinstance(indices, slice):
        return range(length)[indices]
    if isinstance(indices, (list, tuple, numpy.ndarray)):
        array = numpy.asarray(indices)
        if array.size == 0:
            return numpy.zeros(0, numpy.int64)
        if array.ndim != 1:
            raise IndexError(f"{where}: an index array must be 1-dimensional, got shape {array.shape}")
        if array.dtype == numpy.bool_:
            if len(array) != length:
                raise IndexError(f"{where}: a boolean mask must have the length {length}, got {len(array)}")
            return numpy.flatnonzero(array).astype(numpy.int64)
        if array.dtype.kind not in "iu":
            raise IndexError(f"{where}: indices must be integers or booleans, got dtype {array.dtype}")
        array = array.astype(numpy.int64)
        out_of_range = (array < -length) | (array >= length)
        if out_of_range.any():
            bad = int(array[out_of_range][0])
            raise IndexError(f"{where}: index {bad} is out of range for a dataset of length {length}")
        return numpy.where(array < 0, array + length, array)
    raise TypeError(
        f"{where}: indices must be None, a slice, a list or an array of integers, got {type(indices).__name__}"
    )


def count(rows: Rows, length: int) -> int:
    return length if rows is None else len(rows)


def compose(outer: Rows, inner: Rows) -> Rows:
    """The rows of the base selected by ``inner`` applied to the view ``outer``."""
    if inner is None:
        return outer
    if outer is None:
        return inner
    if isinstance(inner, range):
        if len(inner) == 0:
            return range(0)
        if isinstance(outer, range):
            start, step = outer[inner[0]], outer.step * inner.step
            return range(start, start + step * len(inner), step)
        return outer[numpy.arange(inner.start, inner.stop, inner.step)]
    if isinstance(outer, range):
        return outer.start + inner * outer.step
    return outer[inner]


def as_argument(rows: Rows) -> Any:
    """``Rows`` in the form ``get_examples`` receives: ``None``, a slice with a positive
    step, or an integer array."""
    if rows is None or isinstance(rows, numpy.ndarray):
        return rows
    if len(rows) == 0:
        return slice(0, 0, 1)
    if rows.step > 0:
        return slice(rows.start, rows.stop, rows.step)
    return numpy.arange(rows.start, rows.stop, rows.step, dtype=numpy.int64)


def as_array(rows: Rows, length: int) -> numpy.ndarray:
    if rows is None:
        return numpy.arange(length, dtype=numpy.int64)
    if isinstance(rows, range):
        return numpy.arange(rows.start, rows.stop, rows.step, dtype=numpy.int64)
    return rows


def take(column: Any, rows: Any) -> Any:
    """Select rows (``None``, a slice or an integer array) of a list or an array column."""
    if rows is None:
        return column
    if isinstance(rows, slice):
        return column[rows]
    if isinstance(column, numpy.ndarray) or hasattr(column, "__array_namespace__"):
        return column[rows]
    return [column[i] for i in rows.tolist()]


def resolve_keys(keys: Any, all_keys: tuple[str, ...], where: str) -> tuple[tuple[int, ...], bool]:
    """Turn a key (name or position) or a tuple/list of keys into key indices.

    Returns:
        The key indices and whether a single key (not a tuple) was given.
    """
    single = isinstance(keys, (str, int, numpy.integer))
    items = (keys,) if single else keys
    if not isinstance(items, (tuple, list)):
        raise TypeError(f"{where}: keys must be a name, a position, or a tuple of them, got {type(keys).__name__}")
    indices = []
    for key in items:
        if isinstance(key, str):
            if key not in all_keys:
                raise KeyError(f"{where}: no key {key!r}; the keys are {all_keys}")
            indices.append(all_keys.index(key))
        else:
            try:
                position = operator.index(key)
            except TypeError:
                raise TypeError(f"{where}: a key must be a str or an int, got {type(key).__name__}") from None
            if not -len(all_keys) <= position < len(all_keys):
                raise IndexError(f"{where}: key position {position} is out of range for {len(all_keys)} keys")
            indices.append(position % len(all_keys))
    if len(set(indices)) != len(indices):
        raise ValueError(f"{where}: keys {tuple(items)} select a column more than once")
    return tuple(indices), single


def check_mode(mode: Any, where: str) -> None:
    if mode not in (tuple, dict, None):
        raise ValueError(f"{where}: mode must be tuple, dict or None, got {mode!r}")


def check_keys(keys: Any, where: str) -> tuple[str, ...]:
    if isinstance(keys, str):
        keys = (keys,)
    if not isinstance(keys, (tuple, list)) or not all(isinstance(k, str) for k in keys):
        raise TypeError(f"{where}: keys must be a str or a tuple of str, got {keys!r}")
    if len(set(keys)) != len(keys):
        raise ValueError(f"{where}: keys must be unique, got {tuple(keys)}")
    return tuple(keys)
