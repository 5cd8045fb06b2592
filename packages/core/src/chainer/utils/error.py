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
