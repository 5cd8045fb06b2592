"""Triplet loss of anchor, positive and negative embeddings."""

from __future__ import annotations

from typing import Any

from chainer import variable
from chainer.functions import _composite
from chainer.functions.loss import _common, contrastive
from chainer.utils import type_check

_WHERE = "triplet"


class Triplet(_composite.CompositeNode):
    """The triplet loss of ``(anchor, positive, negative)`` as a node; see :func:`triplet`.

    Args:
        margin: Positive margin.
        reduce: ``'mean'`` or ``'no'``.
    """

    def __init__(self, margin: float = 0.2, reduce: str = "mean") -> None:
        self.margin = contrastive._check_margin(margin, _WHERE)
        self.reduce = reduce

    def composite(self, anchor: variable.Variable, positive: variable.Variable, negative: variable.Variable) -> Any:
        return triplet(anchor, positive, negative, self.margin, self.reduce)


def triplet(anchor: Any, positive: Any, negative: Any, margin: float = 0.2, reduce: str = "mean") -> variable.Variable:
    """Triplet loss: the anchor must be closer to the positive than to the negative by a margin.

    The loss of triplet :math:`n` is
    :math:`\\max(0, \\|a_n - p_n\\|^2 - \\|a_n - n_n\\|^2 + m)` (squared Euclidean distances).

    Args:
        anchor: Anchor embeddings, shape ``(N, K)``, floating dtype.
        positive: Positive embeddings, the shape and dtype of ``anchor``.
        negative: Negative embeddings, the shape and dtype of ``anchor``.
        margin: Positive margin :math:`m`.
        reduce: ``'mean'`` (a scalar) or ``'no'`` (shape ``(N,)``).

    Returns:
        The loss variable.

    Example:
        >>> a = np.zeros((1, 2), 'f'); p = np.array([[1., 0.]], 'f'); n = np.array([[0., 2.]], 'f')
        >>> F.triplet(a, p, n, margin=0.5).array  # max(0, 1 - 4 + 0.5)
        array(0., dtype=float32)
    """
    from chainer.functions.activation import relu
    from chainer.functions.math import sum as sum_module

    margin = contrastive._check_margin(margin, _WHERE)
    _common.check_reduce(reduce, ("mean", "no"), _WHERE)

    def check(in_types: Any) -> None:
        type_check._argname(in_types, ("anchor", "positive", "negative"))
        a_type, p_type, n_type = in_types
        type_check.expect(
            a_type.dtype.kind == "f",
            a_type.dtype == p_type.dtype,
            a_type.dtype == n_type.dtype,
            a_type.ndim == 2,
            a_type.shape == p_type.shape,
            a_type.shape == n_type.shape,
        )

    _common.check_arguments(check, (anchor, positive, negative), "Triplet")
    anchor = variable.as_variable(anchor)
    to_positive = anchor - positive
    to_negative = anchor - negative
    loss = relu.relu(
        sum_module.sum(to_positive * to_positive, axis=1) - sum_module.sum(to_negative * to_negative, axis=1) + margin
    )
    if reduce == "mean":
        return sum_module.sum(loss) * (1.0 / max(anchor.shape[0], 1))
    return loss


__all__ = ["triplet"]
