"""Array helpers shared by the modules of onnx_chainer."""

from __future__ import annotations

from typing import Any

import numpy

import chainer
from chainer.backends import cuda


def is_array(value: Any) -> bool:
    """Whether ``value`` is a NumPy or CuPy array (CuPy need not be installed)."""
    if isinstance(value, numpy.ndarray):
        return True
    return type(value).__module__.split(".")[0] == "cupy" and hasattr(value, "dtype")


def to_numpy(array: Any) -> numpy.ndarray:
    """A host (NumPy) copy or view of ``array``."""
    return numpy.asarray(cuda.to_cpu(array))


def flatten(xs: Any) -> list[Any]:
    """The variables and arrays in ``xs`` (nested lists, tuples and dicts), in order."""
    if isinstance(xs, chainer.Variable) or is_array(xs):
        return [xs]
    if isinstance(xs, (list, tuple)):
        return [x for item in xs for x in flatten(item)]
    if isinstance(xs, dict):
        return [x for item in xs.values() for x in flatten(item)]
    return []
