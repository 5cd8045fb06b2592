"""Cholesky decomposition of a symmetric positive-definite matrix."""

from __future__ import annotations

from typing import Any

from chainer import backend, function_node, utils, variable
from chainer.functions.math import _reduction
from chainer.utils import type_check


class Cholesky(function_node.FunctionNode):
    """The lower-triangular ``L`` with ``L L^T = A``.

    From ``dA = dL L^T + L dL^T``: ``L^{-1} dL = Phi(L^{-1} dA L^{-T})``, where ``Phi``
    keeps the lower triangle and halves the diagonal. Hence
    ``gA = sym(L^{-T} Phi(L^T gL) L^{-1})`` with ``sym(S) = (S + S^T) / 2``: the gradient
    for symmetric perturbations of ``A``.
    """

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("a",))
        a_type = in_types[0]
        _reduction.expect_linalg_dtype(a_type)
        type_check.expect(a_type.ndim == 2, a_type.shape[0] == a_type.shape[1])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        a = inputs[0]
        xp = backend.get_array_module(a)
        return (utils.force_array(xp.linalg.cholesky(a), a.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.array import transpose
        from chainer.functions.math import inv, matmul

        (lower,) = self.get_retained_outputs()
        gl = grad_outputs[0]
        n = lower.shape[0]
        xp = backend.get_array_module(lower.array)
        phi = xp.tril(xp.ones((n, n), lower.dtype)) - 0.5 * xp.eye(n, dtype=lower.dtype)
        p = matmul.matmul(lower, gl, transa=True) * phi
        lower_inv = inv.inv(lower)
        s = matmul.matmul(lower_inv, matmul.matmul(p, lower_inv), transa=True)
        return ((s + transpose.transpose(s)) * 0.5,)


def cholesky(a: Any) -> variable.Variable:
    """Cholesky decomposition of a symmetric positive-definite matrix.

    Only the lower triangle of ``a`` is read. The gradient is the symmetric one (the
    derivative along symmetric changes of ``a``).

    Args:
        a: A variable of shape ``(N, N)``, float32 or float64, symmetric positive-definite.

    Returns:
        The lower-triangular ``L`` with ``L @ L.T == a``.

    Raises:
        numpy.linalg.LinAlgError: ``a`` is not positive-definite (on CPU).

    Example:
        >>> F.cholesky(np.array([[4., 2.], [2., 5.]], 'f')).array
        array([[2., 0.],
               [1., 2.]], dtype=float32)
    """
    return Cholesky().apply((a,))[0]


__all__ = ["cholesky"]
