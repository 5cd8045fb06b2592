"""DeCov loss: penalise the covariance between hidden units."""

from __future__ import annotations

from typing import Any

from chainer import backend, variable
from chainer.functions import _composite
from chainer.functions.loss import _common
from chainer.utils import type_check

_WHERE = "decov"


class DeCov(_composite.CompositeNode):
    """The DeCov loss of ``h`` as a node; see :func:`decov`.

    Args:
        reduce: ``'half_squared_sum'`` or ``'no'``.
    """

    def __init__(self, reduce: str = "half_squared_sum") -> None:
        self.reduce = reduce

    def composite(self, h: variable.Variable) -> variable.Variable:
        return decov(h, self.reduce)


def decov(h: Any, reduce: str = "half_squared_sum") -> variable.Variable:
    """DeCov loss (Cogswell et al., 2016) of the activations ``h``.

    With the covariance :math:`C = \\frac1N (h - \\bar h)^\\top (h - \\bar h)` of the
    ``M`` units over the batch, the loss is
    :math:`\\frac12 (\\|C\\|_F^2 - \\|\\mathrm{diag}(C)\\|_2^2)`: the squared off-diagonal
    covariances.

    Args:
        h: Activations of shape ``(N, M)``, floating dtype.
        reduce: ``'half_squared_sum'`` (the scalar loss) or ``'no'`` (the covariance
            matrix :math:`C` with its diagonal set to zero, ``(M, M)``).

    Returns:
        The loss variable.

    Example:
        >>> h = np.array([[1., 1.], [-1., -1.]], 'f')  # perfectly correlated units
        >>> F.decov(h).array  # C = [[1, 1], [1, 1]]: 0.5 * (1 + 1)
        array(1., dtype=float32)
    """
    from chainer.functions.math import average, matmul
    from chainer.functions.math import sum as sum_module

    _common.check_reduce(reduce, ("half_squared_sum", "no"), _WHERE)

    def check(in_types: Any) -> None:
        type_check._argname(in_types, ("h",))
        type_check.expect(in_types[0].dtype.kind == "f", in_types[0].ndim == 2)

    _common.check_arguments(check, (h,), "DeCov")
    h = variable.as_variable(h)
    n, m = h.shape
    centered = h - average.mean(h, axis=0, keepdims=True)
    covariance = matmul.matmul(centered, centered, transa=True) * (1.0 / max(n, 1))
    xp = backend.get_array_module(h.array)
    off_diagonal = covariance * (1 - xp.eye(m, dtype=h.dtype))
    if reduce == "half_squared_sum":
        return sum_module.sum(off_diagonal * off_diagonal) * 0.5
    return off_diagonal


__all__ = ["decov"]
