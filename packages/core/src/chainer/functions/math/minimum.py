"""Elementwise minimum of two variables."""

from __future__ import annotations

import operator
from typing import Any

from chainer import variable
from chainer.functions.math import _elementwise


class MinimumGrad(_elementwise.Masked):
    """The gradient of :func:`minimum` for one operand: ``gy`` where that operand was chosen."""


class Minimum(_elementwise.Selection):
    # The gradient goes to the smaller input; to x1 on ties.
    _select = "minimum"
    _grad = MinimumGrad
    _x1_wins = staticmethod(operator.le)


def minimum(x1: Any, x2: Any) -> variable.Variable:
    """Elementwise minimum of two variables.

    ``x1`` and ``x2`` must have the same floating dtype; their shapes broadcast. The
    gradient goes to the smaller input, and to ``x1`` where they are equal.

    Args:
        x1: The first input variable or array.
        x2: The second input variable or array.

    Returns:
        :math:`\\min(x_1, x_2)` in the broadcast shape.

    Example:
        >>> F.minimum(np.array([1., 4.], 'f'), np.array([3., 2.], 'f')).array
        array([1., 2.], dtype=float32)
    """
    return Minimum().apply((x1, x2))[0]


__all__ = ["minimum"]
