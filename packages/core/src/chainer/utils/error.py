"""Helpers for error messages."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def _format_array_props(arrays: Sequence[Any]) -> str:
    """Shape, dtype and type of each array, for a message (``None`` for a missing one)."""
    parts = []
    for a in arrays:
        if a is None:
            parts.append("None")
        else:
            parts.append(f"shape={tuple(a.shape)}, dtype={a.dtype}, type={type(a).__module__}.{type(a).__name__}")
    return ", ".join(parts)
