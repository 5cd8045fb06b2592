"""Cross-covariance penalty between two sets of activations."""

from __future__ import annotations

from typing import Any

from chainer import variable
from chainer.functions import _composite
from chainer.functions.loss import _common
from chainer.utils import type_check

_WHERE = "cross_covariance"


class CrossCovariance(_composite.CompositeNode):
    """The cross-covariance penalty of ``(y, z)`` as a node; see :func:`cross_covariance`.

    Args:
        reduce: ``'half_squared_sum'`` or ``'no'``.
    """

    def __init__(self, reduce: str = "half_squared_sum") -> None:
        self.reduce = reduce

    def composite(self, y: variable.Variable, z: variable.Variable) -> variable.Variable:
        return cross_covariance(y, z, self.reduce)


def cross_covariance(y: Any, z: Any, reduce: str = "half_squared_sum") -> variable.Variable:
    """Squared cross-covariance between the units of ``y`` and those of ``z``.

    With :math:`C = \\frac1N (y - \\bar y)^\\top (z - \\bar z)` (an ``(M, K)`` matrix, the
    means taken over the batch) the loss is :math:`\\frac12 \\|C\\|_F^2`.

    Args:
        y: Activations of shape ``(N, M)``, floating dtype.
        z: Activations of shape ``(N, K)``, the dtype of ``y``.
        reduce: ``'half_squared_sum'`` (the scalar loss) or ``'no'`` (the cross-covariance
            matrix :math:`C` itself, ``(M, K)``).

    Returns:
        The loss variable.

    Example:
        >>> y = np.array([[1.], [-1.]], 'f'); z = np.array([[2.], [-2.]], 'f')
        >>> F.cross_covariance(y, z).array  # C = [[2]]
        array(2., dtype=float32)
    """
    from chainer.functions.math import average, matmul
    from chainer.functions.math import sum as sum_module

    _common.check_reduce(reduce, ("half_squared_sum", "no"), _WHERE)

    def check(in_types: Any) -> None:
        type_check._argname(in_types, ("y", "z"))
        y_type, z_type = in_types
        type_check.expect(
            y_type.dtype.kind == "f",
            y_type.dtype == z_type.dtype,
            y_type.ndim == 2,
            z_type.ndim == 2,
            y_type.shape[0] == z_type.shape[0],
        )

    _common.check_arguments(check, (y, z), "CrossCovariance")
    y = variable.as_variable(y)
    z = variable.as_variable(z)
    y_centered = y - average.mean(y, axis=0, keepdims=True)
    z_centered = z - average.mean(z, axis=0, keepdims=True)
    covariance = matmul.matmul(y_centered, z_centered, transa=True) * (1.0 / max(y.shape[0], 1))
    if reduce == "half_squared_sum":
        return sum_module.sum(covariance * covariance) * 0.5
    return covariance


__all__ = ["cross_covariance"]
