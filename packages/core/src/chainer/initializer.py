"""The :class:`Initializer` base class and fan computations."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import _environment


class Initializer:
    """Fills an array in place with initial values.

    Args:
        dtype: The dtype the initializer expects; ``None`` accepts any (the default dtype
            is used where the initializer creates the array). ``chainer.mixed16`` is kept
            as it is and means float16 arrays.
    """

    def __init__(self, dtype: Any = None) -> None:
        if dtype is not None and dtype is not _environment.mixed16:
            dtype = numpy.dtype(dtype)
        self.dtype = dtype

    def __call__(self, array: Any) -> None:
        """Fill ``array`` (NumPy or CuPy) in place."""
        raise NotImplementedError(f"{type(self).__name__} must implement __call__(array)")

    def __repr__(self) -> str:
        params = {k: v for k, v in vars(self).items() if not k.startswith("_") and v is not None}
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in params.items())})"


def get_fans(shape: tuple[int, ...]) -> tuple[int, int]:
    """Fan-in and fan-out of a weight of ``shape``: ``(shape[1] * receptive, shape[0] * receptive)``.

    The first axis is the output channels, the second the input channels, and the rest
    is the receptive field (as for ``Convolution2D`` weights ``(out, in, kh, kw)``).
    """
    if not isinstance(shape, tuple) or len(shape) < 2:
        raise ValueError(f"get_fans: the shape must have at least 2 dimensions, got {shape!r}")
    receptive = 1
    for s in shape[2:]:
        receptive *= s
    return shape[1] * receptive, shape[0] * receptive
