"""ChainerX is not part of this distribution; this module says so clearly."""

from __future__ import annotations

from typing import Any

from chainer import _backend

_MESSAGE = (
    "ChainerX is not part of this distribution (it behaves like Chainer 7.8.1 built without "
    "ChainerX). Use the '@numpy' or '@cupy:N' device specifiers instead."
)


class ChainerxNotAvailableError(RuntimeError):
    """Raised by every use of ChainerX."""


def not_available_error(where: str) -> ChainerxNotAvailableError:
    return ChainerxNotAvailableError(f"{where}: {_MESSAGE}")


def looks_like_chainerx_spec(spec: str) -> bool:
    backend, _, index = spec.partition(":")
    return backend in ("native", "cuda") and (index == "" or index.isdigit())


class ChainerxDevice(_backend.Device):
    """Device of the ChainerX backend, which this distribution does not include."""

    def __init__(self, device: Any = None) -> None:
        raise not_available_error("chainer.backend.ChainerxDevice")

    @staticmethod
    def from_array(array: Any) -> None:
        return None

    @staticmethod
    def from_fallback_device(device: Any) -> ChainerxDevice:
        raise not_available_error("ChainerxDevice.from_fallback_device")

    @property
    def fallback_device(self) -> _backend.Device:
        """The NumPy/CuPy device of a ChainerX device (never reached: none can exist)."""
        raise not_available_error("ChainerxDevice.fallback_device")
