"""Sorting batch-major sequences for the time-major sequence functions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy


def argsort_list_descent(lst: Sequence[Any]) -> Any:
    """Indices that sort the sequences by length, longest first (stable among equal lengths)."""
    return numpy.argsort([-len(x) for x in lst], kind="stable").astype(numpy.int32)


def permutate_list(lst: Sequence[Any], indices: Any, inv: bool) -> list[Any]:
    """``[lst[i] for i in indices]``, or its inverse with ``inv=True``."""
    if not inv:
        return [lst[i] for i in indices]
    ret: list[Any] = [None] * len(lst)
    for position, i in enumerate(indices):
        ret[i] = lst[position]
    return ret
