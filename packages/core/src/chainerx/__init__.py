"""ChainerX placeholder: this distribution behaves like Chainer 7.8.1 built without ChainerX.

``import chainerx`` works and ``chainerx.is_available()`` is ``False``; any other use
raises an error that says ChainerX is not part of this distribution.
"""

from __future__ import annotations

from typing import Any

_MESSAGE = (
    "ChainerX is not part of this distribution (it behaves like Chainer 7.8.1 built without "
    "ChainerX). Use NumPy ('@numpy') or CuPy ('@cupy:N') devices instead."
)


class ChainerxNotAvailableError(RuntimeError):
    """Raised by every use of ChainerX."""


def is_available() -> bool:
    """Always ``False``: ChainerX is not built into this distribution."""
    return False


class _Unavailable:
    """Stands in for ChainerX types (``chainerx.ndarray``, ``chainerx.Device``): no object
    is an instance of it, and constructing it raises."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise ChainerxNotAvailableError(f"chainerx.{type(self).__name__}: {_MESSAGE}")


class ndarray(_Unavailable):
    pass


class Device(_Unavailable):
    pass


class Backend(_Unavailable):
    pass


class Context(_Unavailable):
    pass


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    raise ChainerxNotAvailableError(f"chainerx.{name}: {_MESSAGE}")


__all__ = ["Backend", "ChainerxNotAvailableError", "Context", "Device", "is_available", "ndarray"]
