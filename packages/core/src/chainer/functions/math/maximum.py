"""Elementwise maximum of two variables."""

from __future__ import annotations

import operator
from typing import Any

from chainer import variable
from chainer.functions.math import _elementwise


class MaximumGrad(_elementwise.Masked):
    """The gradient of :func:`maximum` for one operand: ``gy`` where that operand was chosen."""


class Maximum(_elementwise.Selection):
    # The gradient goes to the larger input; to x1 on ties.
    _select = "maximum"
    _grad = MaximumGrad
    _x1_wins = staticmethod(operator.ge)


def maximum(x1: Any, x2: Any) -> variable.Variable:
    """Elementwise maximum of two variables.

    ``x1`` and ``x2`` must have the same floating dtype; their shapes broadcast. The
    gradient goes to the larger input, and to ``x1`` where they are equal.

    Args:
        x1: The first input variable or array.
        x2: The second input variable or array.

    Returns:
        :math:`\\max(x_1, x_2)` in the broadcast shape.

    Example:
        >>> F.maximum(np.array([1., 4.], 'f'), np.array([3., 2.], 'f')).array
        array([3., 4.], dtype=float32)
    """
    return Maximum().apply((x1, x2))[0]


__all__ = ["maximum"]
