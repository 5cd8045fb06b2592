"""Scaled exponential linear unit."""

from __future__ import annotations

import numbers
from typing import Any

from chainer import variable
from chainer.functions.activation import elu


def selu(x: Any, alpha: float = 1.6732632423543772, scale: float = 1.0507009873554805) -> variable.Variable:
    """Scaled exponential linear unit, ``scale * elu(x, alpha)``.

    The default ``alpha`` and ``scale`` are the self-normalising constants of
    Klambauer et al., *Self-Normalizing Neural Networks* (2017).

    Args:
        x: Input variable of a floating dtype.
        alpha: Scale of the negative part before the overall scaling.
        scale: Overall scaling factor.

    Returns:
        Output variable of the shape and dtype of ``x``.

    Example:
        >>> F.selu(np.array([0., 1.], 'f')).array
        array([0.      , 1.050701], dtype=float32)
    """
    if not isinstance(scale, numbers.Real) or isinstance(scale, bool):
        raise TypeError(f"chainer.functions.selu: scale must be a real number, got {type(scale).__name__} {scale!r}")
    return elu.ELU(alpha).apply((x,))[0] * scale


__all__ = ["selu"]
