"""Contrastive loss of pairs of embeddings."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import variable
from chainer.functions import _composite
from chainer.functions.loss import _common
from chainer.utils import type_check

_WHERE = "contrastive"


def _check_margin(margin: Any, where: str) -> float:
    if isinstance(margin, bool) or not isinstance(margin, (int, float, numpy.number)) or not margin > 0:
        raise ValueError(f"chainer.functions.{where}: margin must be a positive number, got {margin!r}")
    return float(margin)


class Contrastive(_composite.CompositeNode):
    """The contrastive loss of ``(x0, x1, y)`` as a node; see :func:`contrastive`.

    Args:
        margin: Positive margin.
        reduce: ``'mean'`` or ``'no'``.
    """

    def __init__(self, margin: float = 1, reduce: str = "mean") -> None:
        self.margin = _check_margin(margin, _WHERE)
        self.reduce = reduce

    def composite(self, x0: variable.Variable, x1: variable.Variable, y: variable.Variable) -> variable.Variable:
        return contrastive(x0, x1, y, self.margin, self.reduce)


def contrastive(x0: Any, x1: Any, y: Any, margin: float = 1, reduce: str = "mean") -> variable.Variable:
    """Contrastive loss of pairs: pull similar pairs together, push others past a margin.

    With :math:`d_n = \\|x_{0,n} - x_{1,n}\\|_2` the loss of pair :math:`n` is
    :math:`\\frac12 \\left(y_n d_n^2 + (1 - y_n) \\max(0, m - d_n)^2\\right)`.

    Args:
        x0: First embeddings, shape ``(N, K)``, floating dtype.
        x1: Second embeddings, the shape and dtype of ``x0``.
        y: Signed integer labels of shape ``(N,)``: ``1`` for similar pairs, ``0`` for dissimilar.
        margin: Positive margin :math:`m`.
        reduce: ``'mean'`` (the sum over pairs divided by ``N``) or ``'no'`` (shape ``(N,)``).

    Returns:
        The loss variable.

    Example:
        >>> x0 = np.array([[0., 0.]], 'f'); x1 = np.array([[0.6, 0.8]], 'f')
        >>> F.contrastive(x0, x1, np.array([1], 'i')).array  # 0.5 * 1.0 ** 2
        array(0.5, dtype=float32)
    """
    from chainer.functions.activation import relu
    from chainer.functions.math import sum as sum_module

    margin = _check_margin(margin, _WHERE)
    _common.check_reduce(reduce, ("mean", "no"), _WHERE)

    def check(in_types: Any) -> None:
        type_check._argname(in_types, ("x0", "x1", "y"))
        x0_type, x1_type, y_type = in_types
        type_check.expect(
            x0_type.dtype.kind == "f",
            x0_type.dtype == x1_type.dtype,
            y_type.dtype.kind == "i",
            x0_type.ndim == 2,
            x0_type.shape == x1_type.shape,
            y_type.ndim == 1,
            x0_type.shape[0] == y_type.shape[0],
        )

    _common.check_arguments(check, (x0, x1, y), "Contrastive")
    y_array = variable.as_array(y)
    if y_array.size and (int(y_array.min()) < 0 or int(y_array.max()) > 1):
        raise ValueError(f"chainer.functions.{_WHERE}: every label of y must be 0 or 1")
    diff = variable.as_variable(x0) - x1
    dist_sq = sum_module.sum(diff * diff, axis=1)
    similar = y_array.astype(diff.dtype)
    gap = relu.relu(margin - _common.safe_sqrt(dist_sq))
    loss = (dist_sq * similar + gap * gap * (1 - similar)) * 0.5
    if reduce == "mean":
        return sum_module.sum(loss) * (1.0 / max(diff.shape[0], 1))
    return loss


__all__ = ["contrastive"]
