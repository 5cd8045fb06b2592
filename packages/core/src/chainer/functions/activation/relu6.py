"""Rectified linear unit clipped at 6."""

from __future__ import annotations

from typing import Any

from chainer import variable
from chainer.functions.activation import clipped_relu


def relu6(x: Any) -> variable.Variable:
    """Rectified linear unit clipped at 6, :math:`\\min(\\max(0, x), 6)`.

    Args:
        x: Input variable of a floating dtype.

    Returns:
        Output variable of the shape and dtype of ``x``.

    Example:
        >>> F.relu6(np.array([-1., 3., 8.], 'f')).array
        array([0., 3., 6.], dtype=float32)
    """
    return clipped_relu.ClippedReLU(6.0, label="ReLU6").apply((x,))[0]


__all__ = ["relu6"]
