"""Deterministic inputs for export tests: every element differs, so a wrong index or a
transposed axis in a converter changes the result."""

from __future__ import annotations

from typing import Any

import numpy

__all__ = ["increasing", "nonzero_increasing", "positive_increasing", "shaped_range"]


def _shape(shape: tuple[Any, ...], where: str) -> tuple[int, ...]:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    for d in shape:
        if not isinstance(d, (int, numpy.integer)) or isinstance(d, bool) or d < 0:
            raise ValueError(
                f"onnx_chainer.testing.input_generator.{where}: the shape must be non-negative ints, got {shape}"
            )
    return tuple(int(d) for d in shape)


def _increasing_impl(*shape: Any, dtype: Any = numpy.float32, negative: bool = True, bias: float = 0) -> numpy.ndarray:
    """Evenly spaced values in C order: from ``-1`` to ``1`` (``negative``) or from ``0``
    to ``1``, plus ``bias``."""
    shape = _shape(shape, "increasing")
    size = int(numpy.prod(shape, dtype=numpy.int64))
    low = -1.0 if negative else 0.0
    return (numpy.linspace(low, 1.0, num=size) + bias).reshape(shape).astype(dtype)


def increasing(*shape: Any, dtype: Any = numpy.float32) -> numpy.ndarray:
    """Returns a monotonically increasing ndarray for test inputs.

    The values go evenly from ``-1`` to ``1`` in C order (a single element is ``-1``).

    Args:
        *shape: The shape (ints, or one tuple).
        dtype: The dtype.

    Example:
        >>> from onnx_chainer.testing.input_generator import increasing
        >>> increasing(2, 3)
        array([[-1. , -0.6, -0.2],
               [ 0.2,  0.6,  1. ]], dtype=float32)
    """
    return _increasing_impl(*shape, dtype=dtype)


def nonzero_increasing(*shape: Any, dtype: Any = numpy.float32, bias: float = 1e-7) -> numpy.ndarray:
    """Returns a monotonically increasing ndarray for test inputs.

    Like :func:`increasing` with no element equal to zero: zeros (which break Div, Log,
    or the kink of ReLU) are replaced with ``bias``.
    """
    x = increasing(*shape, dtype=dtype)
    x[x == 0] = bias
    return x


def positive_increasing(*shape: Any, dtype: Any = numpy.float32, bias: float = 1e-7) -> numpy.ndarray:
    """Returns a monotonically increasing ndarray for test inputs.

    The values go evenly from ``bias`` to ``1 + bias`` (for Log, Sqrt, Pow...).
    """
    return _increasing_impl(*shape, dtype=dtype, negative=False, bias=bias)


def shaped_range(*shape: Any, dtype: Any = numpy.float32) -> numpy.ndarray:
    """``0, 1, 2, ...`` in C order, of the given shape.

    Example:
        >>> from onnx_chainer.testing.input_generator import shaped_range
        >>> shaped_range(2, 3)
        array([[0., 1., 2.],
               [3., 4., 5.]], dtype=float32)
    """
    shape = _shape(shape, "shaped_range")
    return numpy.arange(int(numpy.prod(shape, dtype=numpy.int64))).reshape(shape).astype(dtype)
