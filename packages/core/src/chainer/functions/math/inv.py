"""Inverse of a square matrix, or of each matrix of a batch."""

from __future__ import annotations

from typing import Any

import numpy

from chainer import backend, configuration, function_node, utils, variable
from chainer.functions.math import _reduction
from chainer.utils import type_check


class Inv(function_node.FunctionNode):
    """Matrix inverse of ``a`` (``(N, N)``), or of each ``a[i]`` if ``batched`` (``(B, N, N)``).

    With ``Y = A^{-1}``, ``dY = -Y dA Y``, so the gradient is ``gA = -Y^T gY Y^T``.
    """

    def __init__(self, batched: bool = False) -> None:
        self.batched = batched

    @property
    def label(self) -> str:
        return "BatchInv" if self.batched else "Inv"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("a",))
        a_type = in_types[0]
        _reduction.expect_linalg_dtype(a_type, half=True)
        type_check.expect(a_type.ndim == (3 if self.batched else 2), a_type.shape[-1] == a_type.shape[-2])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_outputs((0,))
        a = inputs[0]
        xp = backend.get_array_module(a)
        y = xp.linalg.inv(_reduction.linalg_operand(a))
        if xp is not numpy and configuration.config.debug and not bool(xp.isfinite(y).all()):
            # NumPy raises for a singular matrix; CuPy returns non-finite values. In debug
            # mode (as Chainer 7.8.1, whose CuPy checked there) that is the same error.
            raise numpy.linalg.LinAlgError(f"{self.label}: a matrix is singular (its inverse is not finite)")
        return (utils.force_array(y, a.dtype),)

    def backward(self, indexes: tuple[int, ...], grad_outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        from chainer.functions.math import matmul

        (y,) = self.get_retained_outputs()
        gy = grad_outputs[0]
        return (-matmul.matmul(y, matmul.matmul(gy, y, transb=True), transa=True),)


class BatchInv(Inv):
    """The node of :func:`batch_inv`: :class:`Inv` of each matrix of a batch."""

    def __init__(self) -> None:
        super().__init__(batched=True)


def inv(a: Any) -> variable.Variable:
    """Inverse of a square matrix.

    Args:
        a: A variable of shape ``(N, N)``, float16 (computed in float32), float32 or float64.

    Returns:
        The inverse, ``(N, N)``.

    Raises:
        numpy.linalg.LinAlgError: ``a`` is singular (on CPU; on a GPU in debug mode).

    Example:
        >>> F.inv(np.array([[2., 0.], [0., 4.]], 'f')).array
        array([[0.5 , 0.  ],
               [0.  , 0.25]], dtype=float32)
    """
    return Inv().apply((a,))[0]


def batch_inv(a: Any) -> variable.Variable:
    """Inverses of a batch of square matrices.

    Args:
        a: A variable of shape ``(B, N, N)``, float16 (computed in float32), float32 or float64.

    Returns:
        The inverse of each matrix, ``(B, N, N)``.

    Example:
        >>> F.batch_inv(np.stack([np.eye(2, dtype='f') * 2] * 3)).shape
        (3, 2, 2)
    """
    return BatchInv().apply((a,))[0]


__all__ = ["batch_inv", "inv"]
