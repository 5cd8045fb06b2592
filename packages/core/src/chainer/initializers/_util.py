"""Checks and helpers shared by the initializers."""

from __future__ import annotations

from typing import Any

import numpy

import chainer
from chainer import backend, initializer


def check_dtype(init: initializer.Initializer, array: Any) -> None:
    """Refuse an array whose dtype differs from the one the initializer was made for."""
    if init.dtype is not None and array.dtype != chainer.get_dtype(init.dtype):
        raise ValueError(
            f"{type(init).__name__}: the array has dtype {array.dtype} but the initializer is for "
            f"{chainer.get_dtype(init.dtype)}"
        )


def check_floating(init: initializer.Initializer, array: Any) -> None:
    """Refuse non-floating arrays: random values would be truncated to integers."""
    check_dtype(init, array)
    if array.dtype.kind != "f":
        raise TypeError(f"{type(init).__name__}: the array must have a floating dtype, got {array.dtype}")


def check_scale(owner: str, scale: Any) -> float:
    """Validate a ``scale`` argument: a finite, non-negative real number."""
    if isinstance(scale, bool) or not isinstance(scale, (int, float, numpy.integer, numpy.floating)):
        raise TypeError(f"{owner}: scale must be a real number, got {type(scale).__name__}")
    scale = float(scale)
    if not numpy.isfinite(scale) or scale < 0:
        raise ValueError(f"{owner}: scale must be finite and non-negative, got {scale}")
    return scale


def fill(array: Any, values: numpy.ndarray) -> None:
    """Write ``values`` (a NumPy array computed on the CPU) into ``array`` on its device,
    casting to the array's dtype."""
    if isinstance(array, numpy.ndarray):
        array[...] = values
        return
    device = backend.get_device_from_array(array)
    with device.create_context():
        array[...] = device.send(numpy.ascontiguousarray(values.astype(array.dtype, copy=False)))


def random_source(rng: Any) -> Any:
    """The generator to draw from: ``rng`` if given, else NumPy's global RNG (so
    ``numpy.random.seed`` makes initialization reproducible on every device)."""
    return numpy.random if rng is None else rng


def fans(init: initializer.Initializer, array: Any) -> tuple[int, int]:
    """``(fan_in, fan_out)`` of ``array``, with an error naming the initializer."""
    if array.ndim < 2:
        raise ValueError(
            f"{type(init).__name__}: the array must have at least 2 dimensions (out, in, ...) to define "
            f"its fans, got shape {array.shape}"
        )
    return initializer.get_fans(tuple(array.shape))
