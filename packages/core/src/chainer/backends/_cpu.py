"""The NumPy backend: :class:`CpuDevice`."""

from __future__ import annotations

import sys
from typing import Any

import numpy

from chainer import _backend


class CpuDevice(_backend.Device):
    """The CPU, computing with NumPy. Its specifier is ``'@numpy'``."""

    xp = numpy
    supported_array_types = (numpy.ndarray,)

    @property
    def name(self) -> str:
        return "@numpy"

    def __repr__(self) -> str:
        return "<CpuDevice (numpy)>"

    @staticmethod
    def from_array(array: Any) -> CpuDevice | None:
        """Return a :class:`CpuDevice` if ``array`` is a NumPy array, else ``None``."""
        if isinstance(array, numpy.ndarray):
            return CpuDevice()
        return None

    def send_array(self, array: Any) -> numpy.ndarray:
        if isinstance(array, numpy.ndarray):
            return array
        if isinstance(array, numpy.generic):
            return numpy.asarray(array)
        # Arrays of other backends know how to come home; CuPy's through .get().
        cupy = sys.modules.get("cupy")
        if cupy is not None and isinstance(array, cupy.ndarray):
            return array.get()
        to_numpy = getattr(array, "__array__", None)
        if to_numpy is None:
            raise TypeError(
                f"CpuDevice.send_array: expected an array (numpy.ndarray, cupy.ndarray or an "
                f"object with __array__), got {type(array).__name__}"
            )
        return numpy.asarray(array)


def _array_to_cpu(array: Any) -> Any:
    """One array (of any backend), a NumPy scalar or ``None`` as a NumPy array (``None`` stays)."""
    if array is None:
        return None
    if isinstance(array, numpy.ndarray):
        return array
    return CpuDevice().send_array(array)


def _to_cpu(array: Any) -> Any:
    """An array, or a list/tuple of arrays, on the CPU (code written for Chainer calls it)."""
    return _backend._convert_arrays(array, _array_to_cpu)
