"""Python float constants of elementwise arithmetic as 0-dimensional NumPy arrays.

NumPy 2 casts a Python scalar operand to the array's dtype on every operation (NEP 50's
weak scalars), a slow path: ``x * 0.5`` on a small array costs twice ``x * y``. A
0-dimensional array of the array's floating dtype holding the constant gives the same
result bit for bit (the value goes through the same cast) at the cost of an array-array
operation, so such arrays are made once per (value, dtype) and kept in :data:`arrays`.

Hot code reads :data:`arrays` directly, ``arrays.get((value, x.dtype))`` for a Python
``float`` value and a ``numpy.ndarray`` ``x``, and calls :func:`operand` on a miss. Only
entries that are exact stand-ins are ever stored: a native floating dtype; a value other
than zero (``0.0 == -0.0`` as keys, but their products differ in sign) and NaN; and a cast
that does not overflow (whose warning must come on every use, as NumPy gives it).
"""

from __future__ import annotations

import math
from typing import Any

import numpy

# (value, dtype) -> 0-dimensional array; cleared when it reaches _MAX_ENTRIES.
arrays: dict[tuple[float, numpy.dtype[Any]], numpy.ndarray] = {}
_MAX_ENTRIES = 512


def operand(value: Any, x: Any) -> Any:
    """The operand to combine with ``x`` in place of the constant ``value``: the cached
    0-dimensional array where it is an exact stand-in (see the module), else ``value``."""
    if type(value) is not float or type(x) is not numpy.ndarray:
        return value
    dtype = x.dtype
    key = (value, dtype)
    cached = arrays.get(key)
    if cached is not None:
        return cached
    if dtype.kind != "f" or not dtype.isnative or value == 0.0 or value != value:
        # (NumPy computes a byte-swapped operand into a native result, which the
        # caller then casts back; only native dtypes keep the result's dtype.)
        return value
    # The cast NumPy makes of the Python float (with its overflow warning, if any).
    array = numpy.array(value, dtype=dtype)
    if math.isinf(array) and not math.isinf(value):
        return value
    if len(arrays) >= _MAX_ENTRIES:
        arrays.clear()
    arrays[key] = array
    return array
