"""Deterministic inputs for export tests: every element differs, so a wrong index or a
transposed axis in a converter changes the result."""

from __future__ import annotations

from typing import Any

import numpy

__all__ = ["increasing", "nonzero_increasing", "positive_increasing"]


def _shape(shape: tuple[Any, ...], where: str) -> tuple[int, ...]:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    for d in shape:
        if not isinstance(d, (int, numpy.integer)) or isinstance(d, bool) or d < 0:
            raise ValueError(
                f"onnx_chainer.testing.input_generator.{where}: the shape must be non-negative ints, got {shape}"
            )
    return tuple(int(d) for d in shape)


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
    shape = _shape(shape, "increasing")
    size = int(numpy.prod(shape, dtype=numpy.int64))
    return numpy.linspace(-1.0, 1.0, num=size).reshape(shape).astype(dtype)


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
    shape = _shape(shape, "positive_increasing")
    size = int(numpy.prod(shape, dtype=numpy.int64))
    return (numpy.linspace(0.0, 1.0, num=size) + bias).reshape(shape).astype(dtype)
