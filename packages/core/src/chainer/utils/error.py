"""Helpers for error messages."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def _format_array_props(arrays: Sequence[Any]) -> str:
    """Library, type, dtype and shape of each array, for a message (``None`` for a
    missing one): ``numpy.ndarray float32 (2, 3), None``."""
    parts = []
    for a in arrays:
        if a is None:
            parts.append("None")
        else:
            parts.append(f"{type(a).__module__.split('.')[0]}.{type(a).__name__} {a.dtype} {tuple(a.shape)}")
    return ", ".join(parts)


def allocation_error(exc: BaseException, where: str, asked: str) -> BaseException:
    """The error to raise for ``exc``, a failure to allocate what ``where`` asked for.

    NumPy's ``MemoryError`` names the array it could not allocate and its
    ``OverflowError`` only the integer that overflowed, never the function of ours that
    asked; the returned error (of the same kind: ``MemoryError``, ``OverflowError``,
    else ``ValueError``, so that code catching the original still catches it) says
    ``<where>: cannot <asked>: <what failed>``. Raise it ``from exc``.

    Args:
        exc: The error of the allocation.
        where: The function (or link) that allocates, as users know it.
        asked: What it was asked to make, e.g. ``'create an array of shape (2, 3)'``.
    """
    message = f"{where}: cannot {asked}: {str(exc) or type(exc).__name__}"
    if isinstance(exc, MemoryError):
        return MemoryError(message)
    if isinstance(exc, OverflowError):
        return OverflowError(message)
    return ValueError(message)
