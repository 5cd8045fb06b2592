"""Hinge loss for one-of-many classification."""

from __future__ import annotations

from typing import Any

from chainer import backend, variable
from chainer.functions import _composite
from chainer.functions.loss import _common
from chainer.utils import type_check

_WHERE = "hinge"


class Hinge(_composite.CompositeNode):
    """The hinge loss of ``(x, t)`` as a node; see :func:`hinge`.

    Args:
        norm: ``'L1'`` or ``'L2'``.
        reduce: ``'mean'`` or ``'no'``.
    """

    def __init__(self, norm: str = "L1", reduce: str = "mean") -> None:
        self.norm = norm
        self.reduce = reduce

    def composite(self, x: variable.Variable, t: variable.Variable) -> variable.Variable:
        return hinge(x, t, self.norm, self.reduce)


def hinge(x: Any, t: Any, norm: str = "L1", reduce: str = "mean") -> variable.Variable:
    """Hinge loss for a one-of-many classification task.

    With :math:`s_{nk} = 1` if :math:`k = t_n` and :math:`-1` otherwise, the loss of an
    element is :math:`\\max(0, 1 - s_{nk} x_{nk})^p` with :math:`p = 1` (``'L1'``) or
    :math:`p = 2` (``'L2'``).

    Args:
        x: Scores of shape ``(N, K)``, floating dtype.
        t: Signed integer labels of shape ``(N,)``, each in ``[0, K)``.
        norm: ``'L1'`` or ``'L2'``.
        reduce: ``'mean'`` (the sum of all elements divided by ``N``) or ``'no'``
            (the loss of every element, shape ``(N, K)``).

    Returns:
        The loss variable, of the dtype of ``x``.

    Example:
        >>> x = np.array([[2., 0.5]], 'f'); t = np.array([0], 'i')
        >>> F.hinge(x, t).array  # max(0, 1 - 2) + max(0, 1 + 0.5)
        array(1.5, dtype=float32)
    """
    from chainer.functions.activation import relu
    from chainer.functions.math import sum as sum_module

    if norm not in ("L1", "L2"):
        # NotImplementedError, as in Chainer: only these two norms are implemented.
        raise NotImplementedError(
            f"chainer.functions.{_WHERE}: norm must be 'L1' or 'L2' (the norms implemented), but {norm!r} is given"
        )
    _common.check_reduce(reduce, ("mean", "no"), _WHERE)

    def check(in_types: Any) -> None:
        type_check._argname(in_types, ("x", "t"))
        x_type, t_type = in_types
        type_check.expect(
            x_type.dtype.kind == "f",
            t_type.dtype.kind == "i",
            x_type.ndim == 2,
            t_type.ndim == 1,
            x_type.shape[0] == t_type.shape[0],
        )

    _common.check_arguments(check, (x, t), "Hinge")
    x = variable.as_variable(x)
    t_array = variable.as_array(t)
    _common.check_labels(t_array, x.shape[1], _WHERE)
    xp = backend.get_array_module(x.array)
    # -s: +1 off the label, -1 on it; the loss is relu(1 - s * x).
    neg_sign = xp.ones(x.shape, x.dtype)
    neg_sign[xp.arange(x.shape[0]), t_array] = -1
    loss = relu.relu(x * neg_sign + 1.0)
    if norm == "L2":
        loss = loss * loss
    if reduce == "mean":
        return sum_module.sum(loss) * (1.0 / max(x.shape[0], 1))
    return loss


__all__ = ["hinge"]
