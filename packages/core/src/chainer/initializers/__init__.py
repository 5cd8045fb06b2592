"""Weight initializers and the helpers that turn any initializer spec into an array."""

from __future__ import annotations

from typing import Any

import numpy

import chainer
from chainer import backend
from chainer.initializers.constant import Constant, Identity, NaN, One, Zero
from chainer.initializers.normal import GlorotNormal, HeNormal, LeCunNormal, Normal
from chainer.initializers.orthogonal import Orthogonal
from chainer.initializers.sampling import DownsamplingConvFilter, UpsamplingDeconvFilter
from chainer.initializers.uniform import GlorotUniform, HeUniform, LeCunUniform, Uniform
from chainer.utils import error as utils_error


def generate_array(initializer: Any, shape: Any, xp: Any, dtype: Any = None, device: Any = None) -> Any:
    """Create an array of ``shape`` filled by ``initializer``.

    Args:
        initializer: An :class:`~chainer.Initializer` or a callable filling an array.
        shape: Shape of the array (an int or a tuple).
        xp: Array module (``numpy``/``cupy``) used when ``device`` is ``None``.
        dtype: dtype of the array; defaults to the initializer's dtype, then to
            ``chainer.config.dtype``.
        device: Device to create the array on.

    Returns:
        The initialized array.
    """
    if isinstance(shape, int):
        shape = (shape,)
    shape = tuple(int(s) for s in shape)
    init_dtype = getattr(initializer, "dtype", None)
    if dtype is None:
        dtype = init_dtype if init_dtype is not None else chainer.get_dtype()
    dtype = chainer.get_dtype(dtype)
    if init_dtype is not None and chainer.get_dtype(init_dtype) != dtype:
        raise ValueError(
            f"generate_array: dtype {dtype} was requested but the initializer {initializer!r} is for "
            f"{chainer.get_dtype(init_dtype)}"
        )
    if device is not None:
        device = backend._get_device_compat(device)
        # Initialize on the CPU first so that random initializers draw from NumPy's stream.
        xp = numpy
    try:
        array = xp.empty(shape, dtype=dtype)
    except (MemoryError, OverflowError, ValueError) as exc:
        # An absurd shape: NumPy's message names the array, not who asked for it.
        raise utils_error.allocation_error(
            exc, "generate_array", f"create an array of shape {shape} and dtype {dtype} for {initializer!r}"
        ) from exc
    try:
        initializer(array)
    except (MemoryError, OverflowError) as exc:
        raise utils_error.allocation_error(
            exc, "generate_array", f"fill an array of shape {shape} and dtype {dtype} with {initializer!r}"
        ) from exc
    return array if device is None else device.send(array)


def _get_initializer(spec: Any) -> Any:
    """Turn an initializer spec into an initializer.

    ``None`` gives :class:`LeCunNormal`; a scalar gives :class:`Constant`; an array gives
    a :class:`Constant` that copies it; an initializer or any callable is returned as is.
    """
    if spec is None:
        return LeCunNormal()
    if numpy.isscalar(spec) or isinstance(spec, numpy.generic):
        return Constant(spec)
    if isinstance(spec, numpy.ndarray) or backend._entry_for_array_type(type(spec)) is not None:
        return Constant(spec)
    if not callable(spec):
        raise TypeError(f"initializer must be None, a scalar, an array or a callable, got {type(spec).__name__}")
    return spec


__all__ = [
    "Constant",
    "DownsamplingConvFilter",
    "GlorotNormal",
    "GlorotUniform",
    "HeNormal",
    "HeUniform",
    "Identity",
    "LeCunNormal",
    "LeCunUniform",
    "NaN",
    "Normal",
    "One",
    "Orthogonal",
    "Uniform",
    "UpsamplingDeconvFilter",
    "Zero",
    "generate_array",
]
