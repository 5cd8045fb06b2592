"""Type aliases for annotating code that uses Chainer (``chainer.types.ShapeSpec`` ...).

They are for type checkers and readers; at run time they are ordinary typing objects.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy

# An array of any backend (NumPy, CuPy, a plugin's).
NdArray = Any
# An array module: numpy, cupy, ...
Xp = ModuleType

Shape = tuple[int, ...]
ShapeSpec = int | Sequence[int]
DTypeSpec = Any | str | type
ScalarValue = numpy.generic | bytes | str | memoryview | numbers.Number
# What chainer.get_device accepts (a Device, '@numpy', '@cupy:N', a cupy.cuda.Device, an int...).
DeviceSpec = Any
CudaDeviceSpec = Any | int | numpy.integer


@runtime_checkable
class AbstractInitializer(Protocol):
    """What initializers are: a callable that fills an array in place, with the dtype it
    is meant for (``None``: any)."""

    dtype: DTypeSpec | None

    def __call__(self, array: NdArray) -> None: ...


InitializerSpec = AbstractInitializer | ScalarValue | NdArray | None

__all__ = [
    "TYPE_CHECKING",
    "AbstractInitializer",
    "CudaDeviceSpec",
    "DTypeSpec",
    "DeviceSpec",
    "InitializerSpec",
    "NdArray",
    "ScalarValue",
    "Shape",
    "ShapeSpec",
    "Xp",
]
