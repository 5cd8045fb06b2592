"""Flattening a variable to one dimension."""

from __future__ import annotations

from typing import Any

from chainer import variable


def flatten(x: Any) -> variable.Variable:
    """Flatten a variable into one dimension (C order).

    Args:
        x: Input variable.

    Returns:
        A 1-dimensional variable of ``x.size`` elements; its gradient is reshaped back.

    Example:
        >>> F.flatten(np.array([[1, 2], [3, 4]], 'f')).array
        array([1., 2., 3., 4.], dtype=float32)
    """
    from chainer.functions.array import reshape

    return reshape.reshape(x, (-1,))


__all__ = ["flatten"]
